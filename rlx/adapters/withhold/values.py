"""A value masked once is masked everywhere in the task: the values inside masked text, and their other places.

When a grader masks `GOLD = {"r1": "Acme 2024-01-02"}`, the docstring above it may list the same values, a
generator at the task root may build the data from them, and task.toml's description may quote one. So every
masked stretch gives up the values it held, and each of them is then masked wherever else it stands in that
task's grader files, other files and metadata.

Which pieces of masked text count as values:
- the contents of quoted strings, except those followed by `:` (keys of a dict or a JSON object);
- numbers, dates and ids (a word holding a digit: "12.50", "2024-01-02", "ZX-0001"), but not names such as
  "python3" or "r1" (a word needs three characters, unless it is a number);
- when the masked text has no quotes at all (a shell word, a heredoc body, a prose list), each line as a whole.
Booleans and null, paths, and values shorter than two characters are left out: masking every "1" or "true" in
a grader hides the grader, not the answer. Values the instruction itself states are no secret and are left out
too (`drop_public`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rlx.adapters.withhold.masking import MASK, Withheld

MIN_CHARS = 3
MAX_CHARS = 200
MAX_VALUES = 2_000
LINES_LISTED = 8
SAME_VALUE_WHY = "a value masked elsewhere in this task"

_QUOTED = re.compile(r"\"((?:\\.|[^\"\\\n]){1,400})\"|'((?:\\.|[^'\\\n]){1,400})'")
_KEY_AFTER = re.compile(r"[ \t]*:(?!:)")
_TOKEN = re.compile(r"[^\s,;=()\[\]{}<>|&\"'`]+")
_NUMBER = re.compile(r"[-+]?\d[\d.,:_-]*")
_NOT_VALUES = frozenset({"true", "false", "none", "null", "nil", "undefined", "nan"})
_EDGE = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"


def values_in(text: str, depth: int = 0) -> set[str]:
    """The values held by one stretch of masked text (see the module docstring)."""
    text = text.replace('"""', "\n").replace("'''", "\n")
    found: set[str] = set()
    rest, last, quoted = [], 0, False
    for match in _QUOTED.finditer(text):
        quoted = True
        rest.append(text[last:match.start()])
        last = match.end()
        if not _KEY_AFTER.match(text, match.end()):
            content = match.group(1) if match.group(1) is not None else match.group(2)
            found.add(content)
            if "\\" in content and depth < 2:  # printf 'a\nb', "print(\"a\")": the values inside, unescaped
                found |= values_in(_unescape(content), depth + 1)
    rest.append(text[last:])
    unquoted = " ".join(rest)
    for token in _TOKEN.findall(unquoted):
        token = token.strip(".:")
        if any(c.isdigit() for c in token) and (len(token) >= MIN_CHARS or _NUMBER.fullmatch(token)):
            found.add(token)
    if not quoted:
        found.update(line.strip().rstrip(",;") for line in text.split("\n"))
    return {value for value in (v.strip() for v in found) if _is_value(value)}


def _unescape(content: str) -> str:
    return re.sub(r"\\([nrt])", "\n", content).replace('\\"', '"').replace("\\'", "'")


def _is_value(value: str) -> bool:
    if not (2 <= len(value) <= MAX_CHARS) or "\n" in value or MASK in value:
        return False
    if value.lower() in _NOT_VALUES or value.startswith(("/", "./", "../", "$")):
        return False
    return len(value) >= MIN_CHARS or bool(_NUMBER.fullmatch(value))


def repeatable(values: Iterable[str]) -> list[str]:
    """The withheld values worth masking where they stand again (not booleans, paths or one character)."""
    return sorted((v for v in set(values) if _is_value(v)), key=lambda v: (-len(v), v))[:MAX_VALUES]


def drop_public(values: Iterable[str], public_text: str) -> list[str]:
    """The values, minus those the public text (the instruction) states itself; longest first."""
    kept = [v for v in set(values) if not (public_text and _stands_in(v, public_text))]
    return sorted(kept, key=lambda v: (-len(v), v))[:MAX_VALUES]


def _stands_in(value: str, text: str) -> bool:
    """Whether `value` stands whole in `text` (as _EDGE matches it), found with str.find: a 100 KB gold patch holds
    thousands of values, and one compiled pattern each took minutes per row."""
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        if not (start and _is_word_char(text[start - 1])) and not (end < len(text) and _is_word_char(text[end])):
            return True
        start = text.find(value, start + 1)
    return False


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def mask_values(text: str, values: list[str], where: str = "") -> tuple[str, list[Withheld]]:
    """`text` with every whole occurrence of each value masked; one record naming the lines touched."""
    present = [v for v in values if v in text] if text else []  # a cheap scan first: most values are elsewhere
    if not present:
        return text, []
    pattern = _pattern(present)
    lines = text.split("\n")
    touched = []
    for index, line in enumerate(lines):
        masked, count = pattern.subn(MASK, line)
        if count:
            lines[index] = masked
            touched.append(index + 1)
    if not touched:
        return text, []
    shown = ", ".join(map(str, touched[:LINES_LISTED])) + (" ..." if len(touched) > LINES_LISTED else "")
    label = f"{where} line{'s' if len(touched) > 1 else ''} {shown}".strip()
    return "\n".join(lines), [Withheld(label, SAME_VALUE_WHY)]


def mask_values_in(value, values: list[str], where: str = ""):
    """Strings inside nested data (metadata, a config summary) masked the same way; returns (value, withheld)."""
    withheld: list[Withheld] = []

    def walk(item, place):
        if isinstance(item, str):
            masked, found = mask_values(item, values, place)
            withheld.extend(Withheld(place, w.why) for w in found)
            return masked
        if isinstance(item, dict):
            return {key: walk(inner, f"{place}.{key}" if place else str(key)) for key, inner in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(inner, f"{place}[{i}]") for i, inner in enumerate(item)]
        return item

    if not values:
        return value, []
    return walk(value, where), withheld


def _pattern(values: list[str]) -> re.Pattern:
    ordered = sorted(set(values), key=len, reverse=True)
    return re.compile(_EDGE.format("(?:" + "|".join(map(re.escape, ordered)) + ")"))
