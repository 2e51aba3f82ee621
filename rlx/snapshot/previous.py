"""The previous snapshot an hourly build starts from: attached read-only, what it holds of each dataset, its page
counts (when to repack), and which tables an hour writes whole (and so counts and checks)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from urllib.parse import quote

from rlx.snapshot.schema import COMPACT_PAGES, FTS, SCHEMA, TABLES
from rlx.snapshot.search_process import shadow_tables
from rlx.snapshot.task_keys import KEPT, KEPT_TABLES, created_table, keys_worn

log = logging.getLogger("rlx.snapshot")


def previous_sources(db: sqlite3.Connection, previous: Path | None) -> dict[str, tuple] | None:
    """Attach the previous snapshot as `previous` and map each of its datasets with rows to (env_key, fingerprint,
    found kind, task count, found kind as stored); None (nothing attached) when there is none, or it is of another
    schema, unreadable, or its task keys call for a build from nothing (task_keys.keys_worn)."""
    if previous is None or not Path(previous).is_file():
        return None
    try:
        attach_previous(db, previous)
    except sqlite3.Error as exc:
        log.warning("snapshot.previous_unusable path=%s error=%s", previous, exc)
        return None
    try:
        schema = db.execute("SELECT value FROM previous.meta WHERE key = 'schema'").fetchone()
        if schema is None or schema[0] != str(SCHEMA):
            raise ValueError(f"schema {schema and schema[0]}, not {SCHEMA}")
        rows = db.execute("SELECT e.id, e.env_key, s.fingerprint, s.found_kind, e.task_count "
                          "FROM previous.env_sources s JOIN previous.envs e ON e.rowid = s.env_rowid").fetchall()
        first, last, tasks = db.execute("SELECT min(rowid), max(rowid), count(*) FROM previous.task_facets").fetchone()
    except (sqlite3.Error, ValueError) as exc:
        log.warning("snapshot.previous_unusable path=%s error=%s", previous, exc)
        db.execute("DETACH previous")
        return None
    if keys_worn(first, last, tasks):
        log.info("snapshot.task_keys_renewed first=%s last=%s tasks=%s", first, last, tasks)
        db.execute("DETACH previous")
        return None
    # The found kind's JSON text is kept too: a kept dataset's env_sources row takes it as it is.
    return {env_id: (rowid, fingerprint, json.loads(found) if found else None, task_count, found)
            for env_id, rowid, fingerprint, found, task_count in rows}


def attach_previous(db: sqlite3.Connection, previous: Path) -> None:
    db.execute("ATTACH ? AS previous", (f"file:{quote(str(Path(previous).resolve()))}?mode=ro&immutable=1",))


def previous_pages(db: sqlite3.Connection) -> tuple[int, int | None]:
    """The attached previous snapshot's page count, and that of the last build from nothing in its line (None when
    it does not say)."""
    pages = db.execute("PRAGMA previous.page_count").fetchone()[0]
    compact = db.execute("SELECT value FROM previous.meta WHERE key = ?", (COMPACT_PAGES,)).fetchone()
    return pages, int(compact[0]) if compact and compact[0].isdigit() else None


def set_compact_pages(db: sqlite3.Connection, compact: int | None) -> None:
    """Record the page count of the last build from nothing: `compact`, carried from the previous snapshot, or this
    file's own (None: it is one)."""
    pages = compact if compact is not None else db.execute("PRAGMA page_count").fetchone()[0]
    db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (COMPACT_PAGES, str(pages)))


def hourly_written(repack: bool) -> tuple[str, ...]:
    """The tables an hourly build writes whole, which it counts and checks: the others are the previous snapshot's
    (task_keys.KEPT_TABLES), a byte copy of a file its own build checked, with a changed dataset's rows deleted and
    added; every reader checks the whole file again as it opens it (rlx/snapshot/local_copy.py). When the build
    repacks them, they are written whole too. At today's catalog this is a third of the whole file's check."""
    made = [name for name in map(created_table, (*TABLES, *FTS)) if name not in KEPT]
    shadows = shadow_tables(tuple(name for name in made if name.endswith("_fts")) + ("task_sample_fts",))
    tables = [name for name in made if not name.endswith("_fts")] + ["env_sets", "task_sample", *shadows]
    return (*tables, *(KEPT_TABLES if repack else ()))
