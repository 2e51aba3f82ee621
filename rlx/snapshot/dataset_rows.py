"""One dataset's snapshot rows: what the snapshot keeps of each task of its index (a few clipped columns), and the
index's fingerprint they are stamped with. They are kept from build to build in the rows cache
(rlx/snapshot/rows_cache.py) while the index is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.registry import get as get_adapter
from rlx.adapters.task_words import WORDS_CHARS

ROWS_VERSION = 2  # bump when what a task row holds (columns, clipping) changes: every cached entry is then stale

# Bounds on what one row may carry, so a strange index cannot bloat the file.
# Briefs at 240 characters: what a card shows (and what the Harbor adapter keeps of an instruction anyway).
TASK_TITLE_CHARS, TASK_BRIEF_CHARS, FACET_CHARS, MAX_TAGS = 200, 240, 80, 50
# A task's words beyond its title and brief (the rest of its prompt, each word once), for task search only.
TASK_WORDS_CHARS = WORDS_CHARS


@dataclass
class DatasetRows:
    """What the snapshot holds of one dataset's index."""

    fingerprint: str | None  # of the index they came from; None: never copied from a previous snapshot
    complete: bool
    found_kind: str | bool | None  # what the index's adapter says the dataset is (None: adapter gone)
    task_count: int
    splits: list[tuple[str, str, int]] = field(default_factory=list)  # (config, split, rows) of a rows dataset
    # (ref, title, brief, category, difficulty, grading, runtime, runs_here, tags as JSON, words), in index order
    tasks: list[tuple] = field(default_factory=list)


def index_fingerprint(path: Path | str) -> str | None:
    """The stored index's identity without reading it: its size, modification time and inode number; None when
    there is no file. An index is only ever replaced whole (written beside it, then renamed over it), so a
    rewritten index is a new file: a new inode, whatever its size and however soon after the last write. One
    system call, where reading the gzip trailer took three, and a build makes this call once per dataset."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}"


def rows_of_index(index: Index, fingerprint: str | None) -> DatasetRows:
    """The snapshot's rows of one index: searched rows only, each ref once, every field clipped."""
    rows = [row for row in _unique_rows(index.rows) if not row.extra.get("_unsearched")]
    return DatasetRows(fingerprint=fingerprint, complete=bool(index.complete), found_kind=_found_kind(index),
                       task_count=int(index.summary.get("rows_total", len(rows))),
                       splits=list(_splits(index)), tasks=[task_values(row) for row in rows])


def task_values(row: TaskRow) -> tuple:
    facets = row.facets or {}
    tags = facets.get("tags")
    tags = [str(t) for t in tags][:MAX_TAGS] if isinstance(tags, list) else []
    return (row.ref, clip(row.title, TASK_TITLE_CHARS), clip(row.brief, TASK_BRIEF_CHARS),
            _facet(facets.get("category")), _facet(facets.get("difficulty")), _facet(facets.get("grading")),
            _facet(facets.get("runtime")), _yes_no(facets.get("runs_here")), strings_json(tags),
            clip(row.extra.get("_words") or "", TASK_WORDS_CHARS))


def strings_json(values: list[str]) -> str:
    """A list of strings as json.dumps(values, ensure_ascii=False) writes it. A build writes one per environment
    and per task: joining the quoted strings costs a third of what an encoder's call does (it sets itself up on
    every call)."""
    return "[" + ", ".join(map(encode_basestring, values)) + "]"


def clip(value, limit: int) -> str:
    """The text with single spaces between its words, cut to `limit` characters with an ellipsis."""
    text = str(value or "")
    if len(text) > limit:
        # The words of the first limit + 1 characters begin the words of the whole text: when they already make
        # more than `limit` characters, the rest of a long text (an instruction, a card) need not be split.
        head = " ".join(text[: limit + 1].split())
        if len(head) > limit:
            return head[: limit - 1].rstrip() + "…"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _found_kind(index: Index) -> str | bool | None:
    adapter = get_adapter(index.adapter)
    return adapter.kind_of_index(index) if adapter is not None else None


def _splits(index: Index) -> Iterator[tuple[str, str, int]]:
    """A rows dataset's splits and row counts (other formats have none)."""
    for split in (index.summary.get("splits") or [])[:200]:
        if isinstance(split, dict):
            yield str(split.get("config", "default")), str(split.get("split", "")), int(split.get("rows", 0))


def _unique_rows(rows: list[TaskRow]) -> Iterator[TaskRow]:
    refs: set[str] = set()
    for row in rows:
        if row.ref not in refs:
            refs.add(row.ref)
            yield row


def _facet(value) -> str | None:
    if isinstance(value, list):  # a facet may hold several values; the card shows the first
        value = value[0] if value else None
    if value is None or isinstance(value, (dict, bool)):
        return None
    text = clip(value, FACET_CHARS)
    return text or None


def _yes_no(value) -> int | None:
    if value in (True, "yes"):
        return 1
    if value in (False, "no"):
        return 0
    return None
