"""A row split by what the grader holds: the agent's fields and plain labels are shown, the rest is withheld.

A processor names the fields the agent gets (its prompt as turns, the system prompt, the tools, the inputs the
environment passes) and the fields that are plain labels (ids, source, split, difficulty, category; a dotted
name such as `extra_info.split` reaches one key inside a nested field). Every other field is the grader's side
of the row and is withheld, with its name and why. A label that turns out to hold long text is withheld too:
a label is short. Then the answer-name rule walks what is left (the second net), and every value withheld is
masked wherever else it stands among the labels, unless the agent's own text states it (then it is no secret).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rlx.adapters.withhold.masking import Withheld
from rlx.adapters.withhold.values import drop_public, mask_values_in
from rlx.adapters.withhold.walk import Walk, listed, parse_nested_text

GRADER_WHY = "the grader's side of the row: not what the agent gets, nor a plain label"
LONG_LABEL_WHY = "long text, where a plain label is short"
LABEL_CHARS = 200
LABEL_ITEMS = 24
MIN_MASKED = 3  # shorter values ("1", "A") are not masked elsewhere: that would hide labels, not answers


@dataclass(frozen=True)
class Shown:
    """What a row shows: `agent` fields, `labels` (dotted names reach inside), and reasons for named withholds."""

    agent: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    default_why: str = GRADER_WHY


def is_plain_label(value: Any, depth: int = 0) -> bool:
    """Short one-line text, a number, a flag, or a small list / record of those."""
    if value is None or isinstance(value, (bool, int, float)) or hasattr(value, "isoformat") \
            or type(value).__name__ == "Decimal":  # dates and decimals a parquet file holds
        return True
    if isinstance(value, str):
        parsed = parse_nested_text(value)
        if parsed is not None and depth == 0:
            return is_plain_label(parsed, depth + 1)
        return len(value) <= LABEL_CHARS and "\n" not in value
    if depth > 1:
        return False
    if isinstance(value, (list, tuple)):
        return len(value) <= LABEL_ITEMS and all(is_plain_label(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return len(value) <= LABEL_ITEMS and all(is_plain_label(v, depth + 1) for v in value.values())
    return False


def split_row(row: dict, shown: Shown, walk: Walk) -> dict:
    """The row with only the agent's fields and plain labels; `walk` records each field left out and its values."""
    top_labels = {name for name in shown.labels if "." not in name}
    inner: dict[str, list[str]] = {}
    for name in shown.labels:
        if "." in name:
            head, rest = name.split(".", 1)
            inner.setdefault(head, []).append(rest)
    kept = {}
    for key, value in row.items():
        name = str(key)
        if name in shown.agent:
            kept[key] = value
        elif name in top_labels:
            if is_plain_label(value):
                kept[key] = value
            else:
                walk.drop(name, LONG_LABEL_WHY, value)
        elif name in inner:
            part = _labels_inside(value, name, inner[name], shown, walk)
            if part:
                kept[key] = part
        else:
            walk.drop(name, _why(name, shown, walk), value)
    return kept


def _why(name: str, shown: Shown, walk: Walk, fallback: str | None = None) -> str:
    """The processor's own reason, else the name rule's when the name says answer, else the general one."""
    if name in shown.reasons:
        return shown.reasons[name]
    if walk.is_answer(name.rsplit(".", 1)[-1]):
        return walk.why
    return fallback or shown.default_why


def _labels_inside(value: Any, where: str, names: list[str], shown: Shown, walk: Walk) -> dict | None:
    parsed = parse_nested_text(value) if isinstance(value, str) else value
    if not isinstance(parsed, dict):
        walk.drop(where, _why(where, shown, walk), value)
        return None
    kept = {}
    for key, item in parsed.items():
        place = f"{where}.{key}"
        if str(key) in names and is_plain_label(item):
            kept[key] = item
        else:
            walk.drop(place, _why(place, shown, walk, shown.reasons.get(where)), item)
    return kept


def withhold_row(row: dict, shown: Shown, walk: Walk) -> tuple[dict, list[Withheld]]:
    """The whole path for one row: split, the answer-name net, then the withheld values masked among labels."""
    kept = walk.clean(split_row(row, shown, walk), "")
    agent_text = _text({k: v for k, v in kept.items() if str(k) in shown.agent})
    values = [v for v in drop_public(walk.values, agent_text) if len(v) >= MIN_MASKED]
    if values:
        labels = {k: v for k, v in kept.items() if str(k) not in shown.agent}
        masked, found = mask_values_in(labels, values)
        kept.update(masked)
        walk.found.extend(found)
    return kept, listed(walk.found)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
