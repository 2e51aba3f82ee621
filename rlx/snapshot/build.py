"""Building the catalog snapshot: one SQLite file on local disk, from the listing and the stored task indexes.

Only what the explorer shows publicly goes in: no private or gated repository, no task metadata beyond the fixed
facet columns, no file texts. The file is written under a temporary name and renamed when whole and checked, so a
reader of `out_path` never sees half a build.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import read_index
from rlx.adapters.registry import get as get_adapter
from rlx.catalog import fetch_listing, words
from rlx.catalog import kind_of as catalog_kind_of
from rlx.snapshot.schema import FTS, FTS_TABLES, INDEXES, SCHEMA, TABLES, TOTALS
from rlx.snapshot.search_tables import build_env_sets
from rlx.sources.base import RepoRecord, Source
from rlx.store import Store, repo_id_of_key

log = logging.getLogger("rlx.snapshot")

# Bounds on what one row may carry, so a strange card or index cannot bloat the file.
# Briefs at 240 characters: what a card shows (and what the Harbor adapter keeps of an instruction anyway).
_HEADING_CHARS, _ENV_BRIEF_CHARS, _TASK_TITLE_CHARS, _TASK_BRIEF_CHARS, _FACET_CHARS = 200, 240, 200, 240, 80
_MAX_TAGS = 50


class SnapshotBuildError(Exception):
    """The database came out unusable (quick_check failed); nothing was written at `out_path`."""


def env_id_of(record: RepoRecord) -> str:
    """A dataset is "org/name", a Space "space:org/name": a dataset and a Space may share a name."""
    return record.id if record.repo_type == "dataset" else f"space:{record.id}"


def build_snapshot(
    records: list[RepoRecord],
    indexes: Mapping[str, Index | None],
    out_path: Path,
    kind_of: Callable[[RepoRecord, bool | None], str] = catalog_kind_of,
    built_at: str | None = None,
) -> dict:
    """Write the snapshot to `out_path`; return its counts, size and timings.

    `indexes` maps an environment id (see env_id_of) to its stored index; it is read one environment at a time,
    so a lazy mapping (StoredIndexes) keeps only one index in memory.
    """
    started = time.perf_counter()
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    built_at = built_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    try:
        counts, timings = _write_database(tmp, records, indexes, kind_of, built_at)
        os.replace(tmp, out_path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    seconds = round(time.perf_counter() - started, 3)
    return {"schema": SCHEMA, "built_at": built_at, "counts": counts, "size": out_path.stat().st_size,
            "seconds": seconds, "timings": timings}


def _write_database(path: Path, records, indexes, kind_of, built_at: str) -> tuple[dict, dict]:
    timings: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        timings[name] = round(now - mark, 3)
        mark = now

    db = sqlite3.connect(path, isolation_level=None)
    try:
        # A build that dies is thrown away whole, so a journal and fsyncs would buy nothing.
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN")
        for statement in (*TABLES, *FTS):
            db.execute(statement)
        counts = _insert_rows(db, records, indexes, kind_of)
        for statement in TOTALS:
            db.execute(statement)
        meta = {"schema": str(SCHEMA), "built_at": built_at, "counts": json.dumps(counts, sort_keys=True)}
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        lap("rows")
        build_env_sets(db)  # the environment search's word, kind and tag sets (rlx/snapshot/search_tables.py)
        lap("env_sets")
        for table in FTS_TABLES:
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        lap("fts")
        for statement in INDEXES:
            db.execute(statement)
        db.execute("COMMIT")
        lap("indexes")
        db.execute("ANALYZE")
        db.execute("VACUUM")
        lap("analyze_vacuum")
        verdict = db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise SnapshotBuildError(f"the new snapshot failed quick_check: {verdict}")
        lap("quick_check")
    finally:
        db.close()
    return counts, timings


def _insert_rows(db: sqlite3.Connection, records, indexes, kind_of) -> dict:
    counts = {"envs": 0, "tasks": 0, "datasets": 0, "spaces": 0, "indexed": 0, "skipped_private": 0,
              "skipped_gated": 0}
    seen: set[str] = set()
    for record in records:
        if record.private or record.gated:
            counts["skipped_private" if record.private else "skipped_gated"] += 1
            continue
        env_id = env_id_of(record)
        if env_id in seen:  # a listing merged from several tag queries may repeat a repository
            continue
        seen.add(env_id)
        index = indexes.get(env_id)
        rows = [r for r in _unique_rows(index.rows) if not r.extra.get("_unsearched")] if index is not None else []
        kind = kind_of(record, None if index is None else _found_kind(index))
        task_count = int(index.summary.get("rows_total", len(rows))) if index is not None else 0
        _insert_env(db, record, env_id, kind, task_count)
        if index is not None:
            db.executemany("INSERT INTO env_splits (env_id, config, split, rows) VALUES (?, ?, ?, ?)",
                           _split_values(env_id, index))
        db.executemany("INSERT INTO tasks (env_id, ref, title, brief, category, difficulty, grading, runtime, "
                       "runs_here, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (_task_values(env_id, row) for row in rows))
        counts["envs"] += 1
        counts["datasets" if record.repo_type == "dataset" else "spaces"] += 1
        counts["indexed"] += index is not None
        counts["tasks"] += task_count
    return counts


def _found_kind(index: Index) -> str | bool | None:
    """What the index's own adapter says the dataset is (None when that adapter is no longer registered)."""
    adapter = get_adapter(index.adapter)
    return adapter.kind_of_index(index) if adapter is not None else None


def _split_values(env_id: str, index: Index) -> Iterator[tuple]:
    """A rows dataset's splits and row counts (other formats have none)."""
    for split in (index.summary.get("splits") or [])[:200]:
        if isinstance(split, dict):
            yield env_id, str(split.get("config", "default")), str(split.get("split", "")), int(split.get("rows", 0))


def _unique_rows(rows: list[TaskRow]) -> Iterator[TaskRow]:
    refs: set[str] = set()
    for row in rows:
        if row.ref not in refs:
            refs.add(row.ref)
            yield row


def _insert_env(db: sqlite3.Connection, record: RepoRecord, env_id: str, kind: str, task_count: int) -> None:
    heading = _clip(record.pretty_name, _HEADING_CHARS)
    brief = _clip(record.card.get("short_description") or record.card.get("description"), _ENV_BRIEF_CHARS)
    tags = list(dict.fromkeys(str(t) for t in record.tags))[:_MAX_TAGS]
    plain_tags = plain_tags_of(tags)
    blob = words.blob(heading, brief, record.id, " ".join(plain_tags))
    cursor = db.execute(
        "INSERT INTO envs (id, key, repo_type, kind, heading, brief, likes, downloads, trending, created, modified, "
        "task_count, tags, sdk, stage, search_blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (env_id, record.id, record.repo_type, kind, heading, brief, int(record.likes or 0),
         int(record.downloads or 0), float(record.trending_score or 0.0), record.created_at, record.last_modified,
         task_count, json.dumps(tags, ensure_ascii=False), record.sdk, record.stage, blob),
    )
    db.executemany("INSERT INTO env_tags (tag, env_rowid) VALUES (?, ?)",
                   ((tag, cursor.lastrowid) for tag in plain_tags))


def plain_tags_of(tags: list[str]) -> list[str]:
    """The tags a person picks from: the Hub's machine tags ("license:mit", "region:us") are left out."""
    return [t for t in dict.fromkeys(tags) if t and ":" not in t]


def _task_values(env_id: str, row: TaskRow) -> tuple:
    facets = row.facets or {}
    tags = facets.get("tags")
    tags = [str(t) for t in tags][:_MAX_TAGS] if isinstance(tags, list) else []
    return (env_id, row.ref, _clip(row.title, _TASK_TITLE_CHARS), _clip(row.brief, _TASK_BRIEF_CHARS),
            _facet(facets.get("category")), _facet(facets.get("difficulty")), _facet(facets.get("grading")),
            _facet(facets.get("runtime")), _yes_no(facets.get("runs_here")), json.dumps(tags, ensure_ascii=False))


def _facet(value) -> str | None:
    if isinstance(value, list):  # a facet may hold several values; the card shows the first
        value = value[0] if value else None
    if value is None or isinstance(value, (dict, bool)):
        return None
    text = _clip(value, _FACET_CHARS)
    return text or None


def _yes_no(value) -> int | None:
    if value in (True, "yes"):
        return 1
    if value in (False, "no"):
        return 0
    return None


def _clip(value, limit: int) -> str:
    text = " ".join(str(value or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class StoredIndexes(Mapping):
    """The indexes on disk, read one at a time as the build asks for them (a broken one counts as absent)."""

    def __init__(self, store: Store):
        self.store = store

    def __getitem__(self, env_id: str) -> Index:
        if env_id.startswith("space:"):
            raise KeyError(env_id)
        try:
            index = read_index(self.store, env_id)
        except Exception as exc:  # one unreadable file must not stop the whole catalog
            log.warning("snapshot.index_unreadable env=%s error=%s", env_id, exc)
            index = None
        if index is None:
            raise KeyError(env_id)
        return index

    def __iter__(self) -> Iterator[str]:
        suffix = ".json.gz"
        for path in sorted(self.store.indexes_dir.glob(f"*{suffix}")):
            yield repo_id_of_key(path.name[: -len(suffix)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


def in_process_builder(source: Source, store: Store) -> Callable[[Path], dict]:
    """A reader's fallback: build the same database from the source's listing and the indexes on disk."""

    def build(out_path: Path) -> dict:
        return build_snapshot(fetch_listing(source), StoredIndexes(store), out_path)

    return build
