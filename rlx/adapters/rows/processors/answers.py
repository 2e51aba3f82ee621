"""Answers out of a row: answer-like keys at any depth, also inside cells that hold JSON or Python-literal text.

Rows pack nested fields in three ways: real nested values (parquet structs and lists, JSON objects), JSON text
(`"{\"answer\": 3}"`), and Python-literal text written by `str(dict)` (`"{'answer': 3}"`). All three are walked.
Text is parsed, never run: `json.loads`, then `ast.literal_eval`, which accepts literals only. A cell that
changed comes back as JSON text; a cell that held no answer comes back exactly as it was.

Which key names an answer is decided in one place, rlx/adapters/withhold/keys.py; a format adds its own names
through `extra_keys`.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterable

from rlx.adapters.withhold import Withheld, is_answer_key, key_words
from rlx.adapters.withhold.keys import KEY_WHY

MAX_DEPTH = 48
MAX_PARSED_TEXT = 1_000_000  # longer cells are not parsed as nested data (a 50 MB cell is refused earlier)
MAX_LISTED = 60  # withheld entries listed by place; more are summed up in one line
BLOB_WHY = "a compressed blob (base64 gzip), which in this format usually packs hidden tests"
_BLOB = re.compile(r"H4sI[A-Za-z0-9+/]{60}")


def withhold_answers(row: Any, extra_keys: Iterable[str] = (), blobs: bool = False) -> tuple[Any, list[Withheld]]:
    """A copy of `row` without answer-like fields, and the list of what was left out (where, why)."""
    walker = _Walker(frozenset("_".join(key_words(k)) for k in extra_keys), blobs)
    cleaned = walker.walk(row, "", 0)
    return cleaned, walker.report()


def parse_nested_text(text: str) -> Any:
    """The value a cell's text holds (a JSON or Python-literal object or list), or None when it holds none."""
    stripped = text.strip()
    if len(stripped) > MAX_PARSED_TEXT or stripped[:1] not in ("{", "["):
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        pass
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (dict, list, tuple)) else None


class _Walker:
    def __init__(self, extra: frozenset[str], blobs: bool):
        self.extra, self.blobs = extra, blobs
        self.found: list[Withheld] = []

    def is_answer(self, key: Any) -> bool:
        name = str(key)
        return is_answer_key(name) or (bool(self.extra) and "_".join(key_words(name)) in self.extra)

    def walk(self, value: Any, where: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            self.found.append(Withheld(where, "it is nested too deep to check for answers"))
            return None
        if isinstance(value, dict):
            kept = {}
            for key, item in value.items():
                place = f"{where}.{key}" if where else str(key)
                if self.is_answer(key):
                    self.found.append(Withheld(place, KEY_WHY))
                else:
                    kept[key] = self.walk(item, place, depth + 1)
            return kept
        if isinstance(value, (list, tuple)):
            return [self.walk(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
        if isinstance(value, str):
            return self.walk_text(value, where, depth)
        return value

    def walk_text(self, text: str, where: str, depth: int) -> Any:
        if self.blobs and _BLOB.match(text):
            self.found.append(Withheld(where, BLOB_WHY))
            return None
        parsed = parse_nested_text(text)
        if parsed is None:
            return text
        before = len(self.found)
        cleaned = self.walk(parsed, where, depth + 1)
        if len(self.found) == before:
            return text
        return json.dumps(cleaned, ensure_ascii=False, default=str)

    def report(self) -> list[Withheld]:
        unique = list(dict.fromkeys(self.found))
        if len(unique) <= MAX_LISTED:
            return unique
        rest = len(unique) - MAX_LISTED
        return unique[:MAX_LISTED] + [Withheld(f"{rest} more places", "the same rules, listed above")]
