"""Answers stated in words: a grader's comments and docstrings, a note beside the task.

A phrase of up to three words that names an answer ("Gold", "The expected answer", "expected_ids"), followed by
`:`, `=`, `->`, `is`, `are` or `should be`, has the rest of its line masked: `# Expected: 1482` and
`Gold: Acme, 2024-01-02, 12.50` keep their opening words and lose the answer. Harmless neighbours stay, as for
keys ("Expected output format: CSV" is not an answer). Lines that only mention an answer word ("compare with the
expected file") are left alone.

In code only comments and docstrings are read this way (code has its own rules); in notes, every line.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from rlx.adapters.withhold.keys import is_answer_key
from rlx.adapters.withhold.masking import Span

_STATED = re.compile(
    r"((?:[A-Za-z][\w-]*[ \t]+){0,2}[A-Za-z][\w-]*)[ \t]*(?::|=(?!=)|->|=>|\bis\b|\bare\b|\bshould be\b)[ \t]*(?=\S)"
)
# Every answer word of keys.py starts with one of these: lines without any are skipped unread (a fast path).
_ANSWERISH = re.compile(r"(?i)ans|solution|gold|truth|gt|expect|ref|oracle|target|label|correct|rubric")
_CLOSING = re.compile(r"[ \t]*(?:\"\"\"|\'\'\')")
WHY = "the words here state an answer"


def stated_spans(line: str, index: int, start: int = 0) -> list[Span]:
    """The answer stated in `line[start:]`, masked to the end of the line."""
    if not _ANSWERISH.search(line, start):
        return []
    for match in _STATED.finditer(line, start):
        if is_answer_key(match.group(1)):
            end = len(line.rstrip("\r"))
            closing = _CLOSING.search(line, match.end())  # a docstring's closing quotes stay
            end = closing.start() if closing else end
            return [Span(index, match.end(), index, end, WHY)] if match.end() < end else []
    return []


def note_spans(lines: list[str]) -> list[Span]:
    return [span for index, line in enumerate(lines) for span in stated_spans(line, index)]


def shell_comment_spans(lines: list[str], code_part) -> list[Span]:
    """Comments of a shell script (`code_part` gives the line without its comment)."""
    spans = []
    for index, line in enumerate(lines):
        code = code_part(line)
        if len(code) < len(line):
            spans.extend(stated_spans(line, index, len(code)))
    return spans


def python_prose_spans(text: str) -> list[Span]:
    """Comments and docstrings (and other bare string statements) of Python source (parsed, never run)."""
    if not _ANSWERISH.search(text):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = text.split("\n")
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for index in range(node.lineno - 1, (node.end_lineno or node.lineno)):
                spans.extend(stated_spans(lines[index], index))
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                spans.extend(stated_spans(lines[row - 1], row - 1, col))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return spans
