"""Answers out of a row: answer-like keys at any depth, also inside cells that hold JSON or Python-literal text.

This is the second net of a row's withholding (the first: a processor shows only what the agent gets and plain
labels, base.py). The walk is the one every exit uses (rlx/adapters/withhold/walk.py); which key names an answer
is decided in rlx/adapters/withhold/keys.py, and a format adds its own names through `extra_keys`.
"""

from __future__ import annotations

from typing import Any, Iterable

from rlx.adapters.withhold import Withheld
from rlx.adapters.withhold.keys import KEY_WHY, answer_rule
from rlx.adapters.withhold.walk import Walk, parse_nested_text

__all__ = ["answer_walk", "parse_nested_text", "withhold_answers"]


def answer_walk(extra_keys: Iterable[str] = (), blobs: bool = False) -> Walk:
    return Walk(answer_rule(extra_keys), KEY_WHY, blobs)


def withhold_answers(row: Any, extra_keys: Iterable[str] = (), blobs: bool = False) -> tuple[Any, list[Withheld]]:
    """A copy of `row` without answer-like fields, and the list of what was left out (where, why)."""
    walk = answer_walk(extra_keys, blobs)
    cleaned = walk.clean(row, "")
    return cleaned, walk.report()
