"""Answer-keyed values masked in raw task.toml text, which pages show as written.

The text is scanned, not parsed, so a file tomllib refuses is masked too. A value is masked when any part
of its full key path names an answer: `gold_answer = "..."`, everything under `[metadata.expected]` or
`[[metadata.answers]]`, `{ answer = 3 }` inside an inline table, multi-line strings and arrays whole. The
top-level `[solution]` table is Harbor's own (the environment of solve.sh), so that one word is not taken
as an answer; its keys still are checked. The masked value reads `"‹withheld›"`; lines it covered become
`# ‹withheld›`, so the line count is kept and a typical file still parses. A value whose end cannot be
found is masked to the end of the file: better too much than an answer.
"""

from __future__ import annotations

import re

from rlx.adapters.withhold.keys import KEY_WHY, is_answer_key
from rlx.adapters.withhold.masking import MASK, Span, Withheld, apply_spans

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ANY_PAIR = re.compile(r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|([A-Za-z0-9_.-]+))[ \t]*=(?!=)[ \t]*")
_SCALAR_END = re.compile(r"[,\]}#\s]")


class _Unreadable(Exception):
    pass


def mask_toml_answers(text: str) -> tuple[str, list[Withheld]]:
    """task.toml text with answer-keyed values masked (line count kept), and what was masked."""
    spans, withheld = toml_answer_spans(text)
    lines = apply_spans(text.split("\n"), spans, mask=f'"{MASK}"', filler=f"# {MASK}")
    return "\n".join(lines), withheld


def toml_answer_spans(text: str) -> tuple[list[Span], list[Withheld]]:
    """Where the answer-keyed values of task.toml text stand, and what they are."""
    scanner = _Scanner(text.split("\n"))
    scanner.scan()
    if scanner.lost_track:
        scanner.sweep()
    return scanner.spans, scanner.withheld


def path_names_answer(path: list[str]) -> bool:
    words = [part for part in path if not part.startswith("[")]
    if len(words) > 1 and words[0] == "solution":
        words = words[1:]
    return any(is_answer_key(word) for word in words)


class _Scanner:
    """Walks the text once, keeping the current table path; records spans of answer-keyed values."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.line, self.col = 0, 0
        self.table: list[str] = []
        self.table_counts: dict[str, int] = {}
        self.spans: list[Span] = []
        self.withheld: list[Withheld] = []
        self.lost_track = False

    def scan(self) -> None:
        while self.line < len(self.lines):
            self.col = 0
            self.skip_blanks()
            char = self.peek()
            entry_line = self.line
            try:
                if char == "[":
                    self.read_header()
                elif char and char != "#":
                    self.read_pair(self.table)
            except _Unreadable:
                self.unreadable(entry_line)
            self.line += 1

    def unreadable(self, entry_line: int) -> None:
        """An entry we cannot read: masked whole inside an answer table; elsewhere, sweep() looks again."""
        self.line = min(self.line, len(self.lines) - 1)
        if path_names_answer(self.table):
            self.spans.append(Span(entry_line, 0, self.line, len(self.lines[self.line]), KEY_WHY))
            self.withheld.append(Withheld(_dotted(self.table), KEY_WHY))
        else:
            self.lost_track = True

    def sweep(self) -> None:
        """After losing track: mask the rest of any line that sets an answer-named key, wherever it is."""
        covered: dict[int, list[tuple[int, float]]] = {}
        for span in self.spans:
            for index in range(span.start_line, span.end_line + 1):
                start = span.start_col if index == span.start_line else 0
                end = span.end_col if index == span.end_line else float("inf")
                covered.setdefault(index, []).append((start, end))
        for index, line in enumerate(self.lines):
            for match in _ANY_PAIR.finditer(line):
                key = next(group for group in match.groups() if group)
                col = match.end()
                if not is_answer_key(key) or any(a <= col <= b for a, b in covered.get(index, ())):
                    continue
                end = len(line.rstrip("\r"))
                self.spans.append(Span(index, col, index, end, KEY_WHY))
                self.withheld.append(Withheld(key, KEY_WHY))
                covered.setdefault(index, []).append((col, end))

    # -- structure -----------------------------------------------------------------------------------

    def read_header(self) -> None:
        many = self.rest().startswith("[[")
        self.col += 2 if many else 1
        path = self.read_key()
        if many:
            name = ".".join(path)
            count = self.table_counts.get(name, 0)
            self.table_counts[name] = count + 1
            path = path + [f"[{count}]"]
        self.table = path

    def read_pair(self, table: list[str]) -> None:
        path = table + self.read_key()
        self.skip_blanks()
        if self.peek() != "=":
            raise _Unreadable
        self.col += 1
        self.skip_blanks()
        self.read_value(path)

    def read_value(self, path: list[str]) -> None:
        start = (self.line, self.col)
        if not path_names_answer(path):
            self.skip_value(path)
            return
        try:
            self.skip_value(None)
        except _Unreadable:
            self.line, self.col = len(self.lines) - 1, len(self.lines[-1])
        self.spans.append(Span(start[0], start[1], self.line, self.col, KEY_WHY))
        self.withheld.append(Withheld(_dotted(path), KEY_WHY))

    def skip_value(self, path: list[str] | None) -> None:
        """Move past one value; with a path, look for answer-keyed values inside tables and arrays."""
        rest = self.rest()
        if rest.startswith(('"""', "'''")):
            self.skip_multiline_string(rest[:3])
        elif rest[:1] in ('"', "'"):
            self.skip_string(rest[0])
        elif rest[:1] == "[":
            self.skip_array(path)
        elif rest[:1] == "{":
            self.skip_inline_table(path)
        else:
            match = _SCALAR_END.search(rest)
            length = match.start() if match else len(rest)
            if length == 0:
                raise _Unreadable
            self.col += length

    def skip_array(self, path: list[str] | None) -> None:
        self.col += 1
        index = 0
        while True:
            self.skip_blanks_and_newlines()
            if self.peek() == "]":
                self.col += 1
                return
            self.skip_value(None if path is None else path + [f"[{index}]"])
            index += 1
            self.skip_blanks_and_newlines()
            if self.peek() == ",":
                self.col += 1
            elif self.peek() != "]":
                raise _Unreadable

    def skip_inline_table(self, path: list[str] | None) -> None:
        self.col += 1
        while True:
            self.skip_blanks()
            if self.peek() == "}":
                self.col += 1
                return
            if path is None:
                self.read_key()
                self.skip_blanks()
                if self.peek() != "=":
                    raise _Unreadable
                self.col += 1
                self.skip_blanks()
                self.skip_value(None)
            else:
                self.read_pair(path)
            self.skip_blanks()
            if self.peek() == ",":
                self.col += 1
            elif self.peek() != "}":
                raise _Unreadable

    # -- tokens --------------------------------------------------------------------------------------

    def read_key(self) -> list[str]:
        parts = []
        while True:
            self.skip_blanks()
            rest = self.rest()
            if rest[:1] in ('"', "'"):
                start = self.col
                self.skip_string(rest[0])
                parts.append(self.lines[self.line][start + 1: self.col - 1])
            else:
                match = _BARE_KEY.match(rest)
                if not match:
                    raise _Unreadable
                parts.append(match.group())
                self.col += match.end()
            self.skip_blanks()
            if self.peek() != ".":
                return parts
            self.col += 1

    def skip_string(self, quote: str) -> None:
        line = self.lines[self.line]
        position = self.col + 1
        while position < len(line):
            if line[position] == "\\" and quote == '"':
                position += 2
                continue
            if line[position] == quote:
                self.col = position + 1
                return
            position += 1
        raise _Unreadable

    def skip_multiline_string(self, quote: str) -> None:
        self.col += 3
        while self.line < len(self.lines):
            line = self.lines[self.line]
            position = self.col
            while position < len(line):
                if line[position] == "\\" and quote == '"""':
                    position += 2
                    continue
                if line.startswith(quote, position):
                    end = position + 3
                    while end < len(line) and line[end] == quote[0] and end - position < 5:
                        end += 1  # up to two quotes may close the content itself
                    self.col = end
                    return
                position += 1
            self.line, self.col = self.line + 1, 0
        raise _Unreadable

    def skip_blanks(self) -> None:
        line = self.lines[self.line]
        while self.col < len(line) and line[self.col] in " \t\r":
            self.col += 1

    def skip_blanks_and_newlines(self) -> None:
        while self.line < len(self.lines):
            self.skip_blanks()
            if self.peek() not in ("", "#"):
                return
            self.line, self.col = self.line + 1, 0
        raise _Unreadable

    def peek(self) -> str:
        return self.lines[self.line][self.col: self.col + 1] if self.line < len(self.lines) else ""

    def rest(self) -> str:
        return self.lines[self.line][self.col:]


def _dotted(path: list[str]) -> str:
    return "".join(part if part.startswith("[") or not index else f".{part}" for index, part in enumerate(path))
