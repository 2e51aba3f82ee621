"""What a processor is: it claims a row format with a score, and turns one row into a task.

A processor never sees an answer: `render_row` first keeps only what the agent gets and the plain labels the
processor names (everything else is the grader's side and withheld, fields.py), takes answer-like names out of
that too, then hands the cleaned row to `to_task`. Whatever `to_task` raises becomes a clear message in place
of that one task, so a malformed row never stops the rest of the dataset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from rlx.adapters import blocks as b
from rlx.adapters.contract import Block, Section, Withheld
from rlx.adapters.rows.processors.answers import answer_walk
from rlx.adapters.rows.processors.fields import Shown, withhold_row

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}"  # config and split names as the Hub writes them
_REF = re.compile(rf"^(?:(?P<config>{_NAME})/)?(?P<split>{_NAME})/(?P<index>\d{{1,12}})$")


@dataclass(frozen=True)
class RowRef:
    """Where a row lives: `<split>/<i>`, or `<config>/<split>/<i>` when the dataset has several configs."""

    split: str
    index: int
    config: str | None = None

    def __str__(self) -> str:
        head = f"{self.config}/" if self.config else ""
        return f"{head}{self.split}/{self.index}"

    @classmethod
    def parse(cls, text: str) -> "RowRef | None":
        match = _REF.match(text or "")
        if not match:
            return None
        return cls(match["split"], int(match["index"]), match["config"])


@dataclass
class RowTask:
    """One row as a task. `sections` hold blocks from rlx/adapters/blocks.py; `withheld` says what was left out."""

    title: str
    brief: str = ""
    facets: dict[str, Any] = field(default_factory=dict)  # name -> short text or list of short texts
    sections: list[Section] = field(default_factory=list)
    withheld: list[Withheld] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # the task page's glance line
    error: str | None = None  # set when the row could not be read: the page shows it in place of the task


class Processor:
    """One row format. Subclass it, set `key` and `label`, write `claim` and `to_task`, then `register` it.

    - `claim(columns, sample)`: how sure you are, 0 (not mine) to 1 (surely mine), from the column names and a
      few sample rows (already free of answers). Claim cheaply: it runs once per dataset on a handful of rows.
    - `to_task(row, ref, withheld)`: the row (answers already taken out) as a RowTask. `withheld` lists what was
      taken out, so a section can say "graded against a ground truth (withheld)". Raise `RowProblem` with a
      sentence when the row is not in your format; any other exception is reported the same way.
    - `agent_fields`: the fields the agent gets (the prompt as its turns, the system prompt, the tools, the
      inputs the environment passes it). `label_fields`: plain labels (ids, source, split, difficulty,
      category); `extra_info.split` reaches one key inside a nested field. Every other field is withheld as the
      grader's side, named on the page with `withheld_reasons[name]` or a general reason. Override `shown(row,
      hints)` when the fields depend on the row or on the table (the generic processor's columns).
    - `agent_note`: when withholding takes something the agent really gets, say so here (shown on the page).
    - `answer_keys`: this format's answer names the shared rule does not know: the second net, at any depth.
    - `survey(columns, rows)`: hints worked out once per dataset from its first rows (stored with the index and
      handed back to `shown`); the default has none.
    - `withhold(row, hints)`: override only if the format must keep a field whole (a packed archive column) and
      withhold inside it itself. Overriding `shown` or `withhold` means every column of a row is read for you;
      otherwise withheld columns with large cells are left unread (`shown_fields`, rlx/adapters/rows/columns.py).
    """

    key: str = ""
    label: str = ""
    kind: str = "rows"  # the catalog's Kind (rlx/catalog/kinds.py) datasets of this format count under
    agent_fields: tuple[str, ...] = ()
    label_fields: tuple[str, ...] = ()
    withheld_reasons: dict[str, str] = {}
    agent_note: str = ""
    answer_keys: tuple[str, ...] = ()
    blobs_are_answers: bool = False  # base64 gzip blobs ("H4sI...") in this format usually pack hidden tests

    def claim(self, columns: Sequence[str], sample: Sequence[dict]) -> float:
        raise NotImplementedError

    def to_task(self, row: dict, ref: RowRef, withheld: list[Withheld]) -> RowTask:
        raise NotImplementedError

    def survey(self, columns: Sequence[str], rows: Sequence[dict]) -> dict:
        return {}

    def shown(self, row: dict, hints: dict | None = None) -> Shown:
        return Shown(self.agent_fields, self.label_fields, dict(self.withheld_reasons))

    def withhold(self, row: dict, hints: dict | None = None) -> tuple[dict, list[Withheld]]:
        return withhold_row(row, self.shown(row, hints), answer_walk(self.answer_keys, self.blobs_are_answers))

    def shown_fields(self) -> set[str] | None:
        """The top-level fields this processor may show, known before any row is read; None when they depend on
        the row (its own `shown` or `withhold`). Every other field is withheld whatever it holds, so a large one
        need not even be read (rlx/adapters/rows/columns.py)."""
        if type(self).shown is not Processor.shown or type(self).withhold is not Processor.withhold:
            return None
        return set(self.agent_fields) | {name.split(".", 1)[0] for name in self.label_fields}

    # A format whose row holds files (a packed task folder) answers these two for the task page's file viewer;
    # `row` has been through `withhold` already. None: no such folder or file (the default: rows have no files).

    def list_folder(self, row: dict, folder: str) -> list[dict] | None:
        return None

    def read_file(self, row: dict, path: str):
        return None


class RowProblem(ValueError):
    """A row a processor cannot read, with one sentence saying why (shown in place of the task)."""


def render_row(processor: Processor, row: Any, ref: RowRef, hints: dict | None = None) -> RowTask:
    """`row` as a task through `processor`, the grader's side withheld first; a clear error task when the row is
    unreadable. `hints`: what the processor's `survey` said of the dataset (stored with its index)."""
    fallback = f"Row {ref.index}"
    if not isinstance(row, dict):
        return RowTask(title=fallback, error=f"Row {ref} is not a record of named fields "
                                             f"(it is {type(row).__name__}), so it cannot be shown as a task.")
    try:
        clean, withheld = processor.withhold(row, hints)
        task = processor.to_task(clean, ref, list(withheld))
        if processor.agent_note:
            task.sections.insert(0, Section("note", "Withheld from what the agent gets",
                                            [b.note(processor.agent_note, "warn")]))
        for section in task.sections:
            section.blocks = [_safe_block(block) for block in section.blocks]
        task.facets, task.facts = json_safe(task.facets), json_safe(task.facts)
    except RowProblem as exc:
        return RowTask(title=fallback, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - any processor (ours or a newcomer's) may fail on any row: one message
        return RowTask(title=fallback, error=f"Row {ref} does not read as a {processor.label} task "
                                             f"({type(exc).__name__}: {str(exc)[:200]}).")
    task.withheld = _unique(list(withheld) + list(task.withheld))
    task.title = (str(task.title or "") or fallback).strip()[:200] or fallback
    task.brief = str(task.brief or "")
    return task


def json_safe(value: Any, depth: int = 0) -> Any:
    """`value` with what JSON cannot hold made readable: bytes as a size, dates as ISO text, other objects as
    text, so pages, the JSON API and MCP can show any cell a parquet file holds."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if depth > 64:
        return "…"
    if isinstance(value, dict):
        return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"({len(value):,} bytes of binary data)"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _safe_block(block: Block) -> Block:
    data = block.data
    if block.kind == "disclose":
        data = {**data, "blocks": [_safe_block(inner) for inner in data.get("blocks", [])]}
    elif block.kind == "steps":
        data = [{**part, "blocks": [_safe_block(inner) for inner in part.get("blocks", [])]} for part in data]
    else:
        data = json_safe(data)
    return Block(block.kind, data, block.title)


def _unique(items: list[Withheld]) -> list[Withheld]:
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
