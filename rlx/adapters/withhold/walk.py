"""The one walk through nested data that withholds answers: rows, metadata, live servers' answers, run records.

Nested data reaches us three ways: real nested values (dicts, lists, parquet structs), JSON text
(`"{\"answer\": 3}"`) and Python-literal text as `str(dict)` writes it (`"{'answer': 3}"`). All three are walked by
the same rules and to the same depth. Text is parsed, never run: `json.loads`, then `ast.literal_eval`, which
accepts literals only. A text that lost nothing comes back exactly as it was; one that lost something comes back
as JSON text.

Besides the cleaned copy and the list of what was withheld (where, why), the walk keeps the withheld values
themselves (`Walk.values`), never shown, so the caller can mask the same values wherever else they stand in
that task (values.py).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Callable, Iterable

from rlx.adapters.withhold.masking import Withheld

MAX_DEPTH = 64
MAX_PARSED_TEXT = 1_000_000  # longer texts are not parsed as nested data
MAX_LISTED = 60  # withheld entries listed by place; more are summed up in one line
DEEP_WHY = "it is nested too deep to check for answers"
BLOB_WHY = "a compressed blob (base64 gzip), which in this format usually packs hidden tests"
_BLOB = re.compile(r"H4sI[A-Za-z0-9+/]{60}")
MAX_VALUES = 2_000


def parse_nested_text(text: str) -> Any:
    """The value a text holds (a JSON or Python-literal object or list), or None when it holds none."""
    stripped = text.strip()
    if len(stripped) > MAX_PARSED_TEXT or stripped[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, (dict, list, tuple)) else None


class Walk:
    """One walk: `clean(value, where)` returns the copy; `found` and `values` fill as it goes.

    `is_answer(key)` decides which keys go (the shared name rule plus a format's own names); `blobs` also takes
    base64 gzip blobs."""

    def __init__(self, is_answer: Callable[[str], bool], why: str, blobs: bool = False):
        self.is_answer, self.why, self.blobs = is_answer, why, blobs
        self.found: list[Withheld] = []
        self.values: set[str] = set()

    def clean(self, value: Any, where: str = "") -> Any:
        return self._walk(value, where, 0)

    def drop(self, where: str, why: str, value: Any) -> None:
        """Record a piece withheld by the caller's own rule (a grader-side field), and keep its values."""
        self.found.append(Withheld(where, why))
        self.keep_values(value)

    def keep_values(self, value: Any, depth: int = 0) -> None:
        if len(self.values) >= MAX_VALUES or depth > MAX_DEPTH:
            return
        if isinstance(value, dict):
            for item in value.values():
                self.keep_values(item, depth + 1)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self.keep_values(item, depth + 1)
        elif isinstance(value, str):
            parsed = parse_nested_text(value)
            if parsed is not None:
                self.keep_values(parsed, depth + 1)
            else:
                self.values.add(value.strip())
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self.values.add(str(value))

    def _walk(self, value: Any, where: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            self.drop(where, DEEP_WHY, value)
            return None
        if isinstance(value, dict):
            kept = {}
            for key, item in value.items():
                place = f"{where}.{key}" if where else str(key)
                if self.is_answer(str(key)):
                    self.drop(place, self.why, item)
                else:
                    kept[key] = self._walk(item, place, depth + 1)
            return kept
        if isinstance(value, (list, tuple)):
            return [self._walk(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
        if isinstance(value, str):
            return self._walk_text(value, where, depth)
        return value

    def _walk_text(self, text: str, where: str, depth: int) -> Any:
        if self.blobs and _BLOB.match(text):
            self.drop(where, BLOB_WHY, text)
            return None
        parsed = parse_nested_text(text)
        if parsed is None:
            return text
        before = len(self.found)
        cleaned = self._walk(parsed, where, depth + 1)
        if len(self.found) == before:
            return text
        return json.dumps(cleaned, ensure_ascii=False, default=str)

    def report(self) -> list[Withheld]:
        return listed(self.found)


def listed(found: Iterable[Withheld]) -> list[Withheld]:
    """Each place once, at most MAX_LISTED of them and a line for the rest."""
    unique = list(dict.fromkeys(found))
    if len(unique) <= MAX_LISTED:
        return unique
    rest = len(unique) - MAX_LISTED
    return unique[:MAX_LISTED] + [Withheld(f"{rest} more places", "the same rules, listed above")]
