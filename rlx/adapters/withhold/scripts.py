"""Answers written into grader scripts, masked in place so line numbers stay right.

Python files are read with `ast` (see pyliterals). Anything else is read line by line as shell, which also
covers Python and JSON embedded in heredocs:
- a heredoc whose delimiter or target names an answer (`cat > expected.txt <<'EOF'`, `<<-EXPECTED`,
  `EXPECTED=$(cat <<EOF`), or that feeds diff/cmp, has its body masked; other heredoc bodies are read
  again, as Python if they parse, as lines otherwise;
- a value given to an answer-named variable or key: `EXPECTED="42"`, `export ANSWER=...`, `expected = [`
  (multi-line too), `check(expected="42")`, `"gold": "..."`, `read -r EXPECTED <<< "42"`;
- `echo`/`printf` whose output goes to an answer-named file;
- YAML in heredocs: `expected: ...`, block scalars (`answer: |`) with their indented lines.
A value that only refers elsewhere (`EXPECTED=$(cat /tests/expected.txt)`, `"$WANT"`, `expected = solve(x)`)
stays, and so does every line that merely compares (`[ "$OUT" = "$EXPECTED" ]`).
Comments (and Python docstrings) that state an answer ("# Expected: 1482") are masked too (prose.py).
"""

from __future__ import annotations

import re

from rlx.adapters.withhold.keys import is_answer_key
from rlx.adapters.withhold.masking import Span, Withheld, apply_spans, line_label, merge_spans, shift
from rlx.adapters.withhold.prose import python_prose_spans, shell_comment_spans
from rlx.adapters.withhold.pyliterals import python_literal_spans

MAX_SCRIPT_CHARS = 2_000_000
MAX_VALUE_LINES = 5_000
MAX_HEREDOC_NESTING = 8

_HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_HERESTRING = re.compile(r"<<<[ \t]*")
_SHELL_ASSIGN = re.compile(
    r"(?:^|(?<=[\s;&|(]))(?:(?:export|local|readonly|declare|typeset)(?:[ \t]+-\w+)*[ \t]+)?"
    r"([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=(?!=)"
)
_PYTHON_ASSIGN = re.compile(r"^[ \t]*(?:self\.)?([A-Za-z_]\w*)[ \t]*(?::[^=]+)?(?:[ \t]+=|=[ \t]+)(?!=)[ \t]*")
_QUOTED_KEY = re.compile(r"([\"'])([^\"'\n]{1,80})\1[ \t]*:[ \t]*")
_YAML_KEY = re.compile(r"^([ \t]*)(?:-[ \t]+)?([A-Za-z_][\w -]{0,60}):[ \t]+(?=\S)")
_YAML_BLOCK = re.compile(r"[|>][+-]?[0-9]?[ \t]*$")
_ECHO = re.compile(r"^[ \t]*(?:echo|printf)\b(.*?)[ \t]*>{1,2}[ \t]*([^\s;|&]+)[ \t]*$")
_WORDS = re.compile(r"[A-Za-z_][\w-]*")
_COMPARING_COMMANDS = {"diff", "cmp", "comm"}
_REFERENCE = re.compile(
    r"\"?\$\{?\w+\}?\"?"                                         # "$WANT", ${WANT}
    r"|\"?\$\((?:cat[ \t]+|<[ \t]*)[^\s;|&)\"'`]+[ \t]*\)\"?"    # $(cat /tests/expected.txt)
)
_PY_REFERENCE = re.compile(r"[A-Za-z_][\w.]*(?:\([\w., ]*\))?")  # solve(case), data.expected


def mask_grader_script(text: str, where: str = "") -> tuple[str, list[Withheld]]:
    """The script with answer literals masked as ‹withheld›, line count kept, and what was masked.

    `where` names the file in the records ("tests/test.sh" gives "tests/test.sh line 12").
    """
    lines = text.split("\n")
    if len(text) > MAX_SCRIPT_CHARS:
        span = Span(0, 0, len(lines) - 1, len(lines[-1]), "it is too large to check for answers")
        return "\n".join(apply_spans(lines, [span])), [Withheld(where or "the script", span.why)]
    spans = grader_spans(text)
    withheld = [Withheld(line_label(span, where), span.why) for span in merge_spans(spans)]
    return "\n".join(apply_spans(lines, spans)), withheld


def grader_spans(text: str) -> list[Span]:
    """Every stretch of a grader script to mask: answer literals, and answers stated in its comments."""
    lines = text.split("\n")
    spans = python_literal_spans(text)
    if spans is None:
        return shell_spans(lines) + shell_comment_spans(lines, _code_part)
    return spans + python_prose_spans(text)


def shell_spans(lines: list[str], nesting: int = 0) -> list[Span]:
    spans: list[Span] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        openers = list(_HEREDOC.finditer(_code_part(line)))
        if openers:
            index = _heredoc_spans(lines, index, openers, spans, nesting)
            continue
        spans.extend(_line_spans(lines, index))
        index += 1
    return spans


# --- heredocs -------------------------------------------------------------------------------------------

def _heredoc_spans(lines: list[str], index: int, openers: list[re.Match], spans: list[Span], nesting: int) -> int:
    """Mask or re-read the bodies of the heredocs opened on line `index`; returns the line after the last."""
    opener = _code_part(lines[index])
    rest_of_line = _HEREDOC.sub(" ", opener)
    feeds_answer = _names_answer(rest_of_line) or _first_word(opener) in _COMPARING_COMMANDS
    too_deep = nesting >= MAX_HEREDOC_NESTING  # heredocs inside heredocs this deep are masked, not read
    body_start = index + 1
    for match in openers:
        strip_tabs, delimiter = match.group(1) == "-", match.group(3)
        end = _heredoc_end(lines, body_start, delimiter, strip_tabs)
        if end > body_start:
            if feeds_answer or too_deep or is_answer_key(delimiter):
                why = "the text this heredoc writes looks like an answer"
                spans.append(Span(body_start, 0, end - 1, len(lines[end - 1].rstrip("\r")), why))
            else:
                spans.extend(shift(_embedded_spans(lines[body_start:end], nesting + 1), body_start))
        body_start = end + 1
    return body_start


def _heredoc_end(lines: list[str], start: int, delimiter: str, strip_tabs: bool) -> int:
    """Index of the closing delimiter line; an unclosed heredoc runs to the end, as in the shell."""
    for index in range(start, len(lines)):
        candidate = lines[index].rstrip("\r")
        if (candidate.lstrip("\t") if strip_tabs else candidate) == delimiter:
            return index
    return len(lines)


def _embedded_spans(body: list[str], nesting: int) -> list[Span]:
    spans = python_literal_spans("\n".join(body))
    return spans if spans is not None else shell_spans(body, nesting)


# --- one line (and the lines its value runs on to) ----------------------------------------------------------

def _line_spans(lines: list[str], index: int) -> list[Span]:
    line = lines[index]
    code = _code_part(line)
    spans = []
    echo = _ECHO.match(code)
    if echo and _names_answer(echo.group(2)) and echo.group(1).strip():
        why = f"the text written to {echo.group(2)} looks like an answer"
        start = echo.start(1) + len(echo.group(1)) - len(echo.group(1).lstrip())
        spans.append(Span(index, start, index, echo.end(1), why))
    herestring = _HERESTRING.search(code)
    if herestring and _names_answer(code[: herestring.start()]):
        spans.append(_value_span(lines, index, herestring.end(), "shell", "the here-string"))
    python = _PYTHON_ASSIGN.match(code)
    if python and is_answer_key(python.group(1)):
        spans.append(_value_span(lines, index, python.end(), "python", python.group(1)))
    for match in _SHELL_ASSIGN.finditer(code):
        if is_answer_key(match.group(1)):
            spans.append(_value_span(lines, index, match.end(), "shell", match.group(1)))
    for match in _QUOTED_KEY.finditer(code):
        if is_answer_key(match.group(2)):
            spans.append(_value_span(lines, index, match.end(), "item", match.group(2)))
    yaml = _YAML_KEY.match(code)
    if yaml and is_answer_key(yaml.group(2).strip()):
        spans.append(_yaml_value_span(lines, index, yaml))
    return [span for span in spans if span is not None]


def _yaml_value_span(lines: list[str], index: int, match: re.Match) -> Span:
    """`key: value` to the end of the line; a `|` or `>` block runs on while lines are indented deeper."""
    why = f"the value given to {match.group(2).strip()} looks like an answer"
    end = index
    if _YAML_BLOCK.match(lines[index][match.end():]):
        indent = len(match.group(1))
        while end + 1 < len(lines):
            following = lines[end + 1]
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            end += 1
    return Span(index, match.end(), end, len(lines[end].rstrip("\r")), why)


def _value_span(lines: list[str], index: int, col: int, style: str, name: str) -> Span | None:
    end_line, end_col = _value_end(lines, index, col, style)
    if (end_line, end_col) == (index, col):
        return None
    value = lines[index][col:end_col] if end_line == index else None
    if value is not None and _only_refers(value.strip(), style):
        return None
    return Span(index, col, end_line, end_col, f"the value given to {name} looks like an answer")


def _only_refers(value: str, style: str) -> bool:
    if _REFERENCE.fullmatch(value):
        return True
    return style != "shell" and bool(_PY_REFERENCE.fullmatch(value))


def _value_end(lines: list[str], index: int, col: int, style: str) -> tuple[int, int]:
    """Where a value starting at (index, col) ends: across lines while quotes or brackets stay open.

    style "shell": a word ends at unquoted blank, ; & or |. "python": a statement runs to the end of the
    line. "item" (a keyword argument or dict entry): it ends at a comma or the closing bracket around it.
    """
    quote, depth, line_index, position = None, 0, index, col
    last_line = min(len(lines), index + MAX_VALUE_LINES) - 1
    while True:
        line = lines[line_index].rstrip("\r")
        while position < len(line):
            char = line[position]
            if quote:
                if line.startswith(quote, position):
                    position += len(quote)
                    quote = None
                    continue
                if char == "\\" and not (style == "shell" and quote == "'"):
                    position += 1
                position += 1
                continue
            triple = line[position: position + 3]
            if triple in ('"""', "'''"):
                quote, position = triple, position + 3
                continue
            if char in "\"'`":
                quote = char
            elif char == "\\" and position == len(line) - 1:
                break
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    return line_index, position
                depth -= 1
            elif depth == 0 and _ends_value(line, position, col if line_index == index else 0, style):
                return line_index, position
            position += 1
        continues = quote or depth or line.endswith("\\")
        if not continues or line_index >= last_line:
            return line_index, len(line)
        line_index, position = line_index + 1, 0


def _ends_value(line: str, position: int, start: int, style: str) -> bool:
    char = line[position]
    if char == "#" and (position == start or line[position - 1].isspace()):
        return True
    if char == ";" or (style == "item" and char == ","):
        return True
    return style == "shell" and (char.isspace() or char in "&|")


# --- small readers --------------------------------------------------------------------------------------

def _code_part(line: str) -> str:
    """The line without a trailing shell comment (a # after a blank, outside quotes)."""
    quote = None
    for position, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#" and (position == 0 or line[position - 1].isspace()):
            return line[:position]
    return line


def _names_answer(text: str) -> bool:
    return any(is_answer_key(word) for word in _WORDS.findall(text))


def _first_word(line: str) -> str:
    words = line.split()
    return words[0].rsplit("/", 1)[-1] if words else ""
