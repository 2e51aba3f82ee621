"""The few Markdown pieces every section of RESULTS.md is written with: a number, a target's verdict, a table."""

from __future__ import annotations

TODO_ROUTE = ("TODO: this measurement did not complete in this run (see Errors below); rerun `make bench` once the "
              "route answers.")


def num(value, digits: int = 2, unit: str = "") -> str:
    """A figure with thousands separators; a dash when it was not measured (None or NaN)."""
    if value is None or value != value:
        return "—"
    return f"{value:,.{digits}f}{unit}"


def met(ok) -> str:
    return "—" if ok is None else ("**met**" if ok else "**missed**")


def table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table; `align` has one letter per column, l (left) or r (right; the default after the first)."""
    align = align or "l" + "r" * (len(header) - 1)
    marks = ["---" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
