"""How a withheld piece is recorded, and how masked text keeps its line numbers."""

from __future__ import annotations

from dataclasses import dataclass

MASK = "‹withheld›"


@dataclass(frozen=True)
class Withheld:
    """One thing kept from visitors: where it was ("metadata.gold_answer", "tests/test.sh line 12") and why."""

    where: str
    why: str


@dataclass(frozen=True)
class Span:
    """A stretch of text to mask: 0-based lines, character columns, end exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    why: str


def line_label(span: Span, where: str = "") -> str:
    """ "tests/test.sh line 12", or "lines 12-15" when the span covers several lines."""
    first, last = span.start_line + 1, span.end_line + 1
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    return f"{where} {lines}" if where else lines


def apply_spans(lines: list[str], spans: list[Span], mask: str = MASK, filler: str = MASK) -> list[str]:
    """Replace each span by `mask`; lines inside a span become `filler`, so the line count never changes."""
    out = list(lines)
    for span in reversed(merge_spans(spans)):
        first, last = out[span.start_line], out[span.end_line]
        if span.start_line == span.end_line:
            out[span.start_line] = first[: span.start_col] + mask + first[span.end_col:]
            continue
        out[span.start_line] = first[: span.start_col] + mask + _line_end(first)
        for index in range(span.start_line + 1, span.end_line):
            out[index] = _indent(out[index]) + filler + _line_end(out[index])
        out[span.end_line] = _indent(last) + filler + last[span.end_col:]
    return out


def merge_spans(spans: list[Span]) -> list[Span]:
    """Sorted spans with overlapping or nested ones merged, so each character is masked once."""
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start_line, s.start_col)):
        if merged and (span.start_line, span.start_col) < (merged[-1].end_line, merged[-1].end_col):
            previous = merged[-1]
            if (span.end_line, span.end_col) > (previous.end_line, previous.end_col):
                merged[-1] = Span(previous.start_line, previous.start_col, span.end_line, span.end_col, previous.why)
            continue
        merged.append(span)
    return merged


def shift(spans: list[Span], lines: int) -> list[Span]:
    """The same spans, `lines` further down (for text found inside a larger file)."""
    return [Span(s.start_line + lines, s.start_col, s.end_line + lines, s.end_col, s.why) for s in spans]


def _line_end(line: str) -> str:
    """A CRLF file split on \n keeps \r on each line; masked lines keep it too."""
    return "\r" if line.endswith("\r") else ""


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
