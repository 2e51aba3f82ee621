"""Answers written as literals into Python grader code, found with `ast` (the code is parsed, never run).

A literal is masked when it is given to an answer-named name:
  expected = "42"             EXPECTED_OUTPUT = [...]      self.answer: str = "..."     answers["q1"] = 3
  check(expected="42")        {"gold": "..."}              def f(expected="42")          (expected := "42")
  @pytest.mark.parametrize("inp, expected", [...])     the whole table of cases
A value counts as a literal when it holds a constant other than None, a file path ("/tests/expected.json")
or a subscript key (data["answer"]): `expected = solve(case)` stays visible, so does `assert out == expected`.
"""

from __future__ import annotations

import ast
import re

from rlx.adapters.withhold.keys import is_answer_key
from rlx.adapters.withhold.masking import Span

_PATH_LIKE = re.compile(r"(?:\.{0,2}/)[^\s]*|[^\s/]+(?:/[^\s/]+)*\.[A-Za-z]\w{0,4}")


def python_literal_spans(text: str) -> list[Span] | None:
    """Spans of answer literals in Python source, or None if `text` is not Python."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.split("\n")
    spans = []
    for name, value in _named_values(tree):
        if value is not None and is_answer_key(name) and _holds_literal(value):
            span = _span_of(value, lines, f"the value given to {name} looks like an answer")
            if span is not None:
                spans.append(span)
    return spans


def _named_values(tree: ast.AST):
    """(name, value node) for every place a value is bound to, or passed under, a name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _target_names(target):
                    yield name, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            for name in _target_names(node.target):
                yield name, node.value
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg:
                    yield keyword.arg, keyword.value
            yield from _parametrize_table(node)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value, value
        elif isinstance(node, ast.arguments):
            yield from _argument_defaults(node)


def _target_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Attribute):
        return [target.attr]
    if isinstance(target, ast.Subscript):
        names = _target_names(target.value)
        if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
            names.append(target.slice.value)
        return names
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _parametrize_table(call: ast.Call):
    """pytest's parametrize("inp, expected", cases): the cases hold the expected values."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name != "parametrize" or len(call.args) < 2:
        return
    names = call.args[0]
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        argnames = [part.strip() for part in names.value.split(",")]
    elif isinstance(names, (ast.Tuple, ast.List)):
        argnames = [e.value for e in names.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    else:
        return
    for argname in argnames:
        if is_answer_key(argname):
            yield argname, call.args[1]
            return


def _argument_defaults(arguments: ast.arguments):
    positional = arguments.posonlyargs + arguments.args
    for arg, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        yield arg.arg, default
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        yield arg.arg, default


def _holds_literal(value: ast.AST) -> bool:
    subscript_keys = {
        id(node) for sub in ast.walk(value) if isinstance(sub, ast.Subscript) for node in ast.walk(sub.slice)
    }
    for node in ast.walk(value):
        if not isinstance(node, ast.Constant) or id(node) in subscript_keys or node.value is None:
            continue
        if isinstance(node.value, str) and _PATH_LIKE.fullmatch(node.value):
            continue
        return True
    return False


def _span_of(node: ast.AST, lines: list[str], why: str) -> Span | None:
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return None
    start_line, end_line = node.lineno - 1, end_line - 1
    return Span(
        start_line, _char_column(lines[start_line], node.col_offset),
        end_line, _char_column(lines[end_line], end_col),
        why,
    )


def _char_column(line: str, byte_offset: int) -> int:
    """ast counts columns in UTF-8 bytes; masking needs characters."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
