"""Every dataset's snapshot rows, kept in one SQLite file in the store (Store.snapshot_rows_path).

An index holds everything its pages need; the snapshot keeps a few clipped columns of each task. Deriving them means
reading and parsing the whole index, so they are derived once, when the indexer rebuilds a dataset (or when a build
finds them missing), and kept here stamped with the fingerprint of the index they came from
(dataset_rows.index_fingerprint). A build from nothing then copies every dataset's tasks with one INSERT ... SELECT
(rlx/snapshot/task_tables.py), in C, instead of reading a file and inserting its rows from Python per dataset.

Several processes use the file at once (indexers write as they rebuild, builds read and fill gaps): WAL, so readers
never wait for a writer and see one consistent state for as long as their read lasts; a busy timeout, so writers take
turns; and an entry is written whole in one transaction, only while its index still has the fingerprint it was
derived from. A file that is damaged or of another version is set aside and started again: that costs the next builds
the work of deriving the rows again, nothing else.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import quote

from rlx.snapshot.dataset_rows import ROWS_VERSION, DatasetRows

log = logging.getLogger("rlx.snapshot")

# What PRAGMA user_version holds: the layout below and the rows' version (dataset_rows.ROWS_VERSION). Another value
# and the file is started again.
LAYOUT = 1
VERSION = LAYOUT * 1000 + ROWS_VERSION
BUSY_MS = 10_000  # how long a writer waits for another one (an entry's write takes milliseconds)
TASK_COLUMNS = ("ref", "title", "brief", "category", "difficulty", "grading", "runtime", "runs_here", "tags", "words")

# A dataset's tasks are the block of rowids first .. first + rows - 1 of `tasks`, in index order: copying them is a
# range of the table's own key, and an entry rewritten takes a new block at the end.
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS datasets (id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, complete INTEGER NOT NULL, "
    "found_kind TEXT NOT NULL, task_count INTEGER NOT NULL, splits TEXT NOT NULL, first INTEGER NOT NULL, "
    "rows INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tasks (rowid INTEGER PRIMARY KEY, ref TEXT NOT NULL, title TEXT NOT NULL, "
    "brief TEXT NOT NULL, category TEXT, difficulty TEXT, grading TEXT, runtime TEXT, runs_here INTEGER, "
    "tags TEXT NOT NULL, words TEXT NOT NULL)",
)


class RowsCacheError(Exception):
    """The rows cache could not be read (damaged, or taken away mid-read): the build reads the indexes instead."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the cache, its tables made (or the file started again when damaged or of another version)."""
    try:
        return _open(path)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise
        set_aside(path, exc)
        return _open(path)


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{quote(str(path))}", uri=True, isolation_level=None, timeout=BUSY_MS / 1000,
                         check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a lost last entry after a power cut is derived again
        if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:  # another process may have just done it
                db.execute("DROP TABLE IF EXISTS datasets")
                db.execute("DROP TABLE IF EXISTS tasks")
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version={VERSION}")
            db.execute("COMMIT")
    except BaseException:
        db.close()
        raise
    return db


def set_aside(path: Path, reason: BaseException) -> None:
    """Remove a damaged cache (with its WAL and shared-memory files): the next connection starts an empty one."""
    log.warning("snapshot.rows_cache_damaged path=%s error=%s", path, reason)
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def stamps(db: sqlite3.Connection) -> dict[str, str]:
    """Each dataset's fingerprint, as the cache holds it."""
    return dict(db.execute("SELECT id, fingerprint FROM datasets"))


def read_rows(db: sqlite3.Connection, env_id: str, fingerprint: str) -> DatasetRows | None:
    """The dataset's rows when the cache holds them for the index with this fingerprint, else None."""
    db.execute("BEGIN")  # the entry and its tasks from one state of the file
    try:
        entry = db.execute("SELECT complete, found_kind, task_count, splits, first, rows FROM datasets "
                           "WHERE id = ? AND fingerprint = ?", (env_id, fingerprint)).fetchone()
        if entry is None:
            return None
        complete, found_kind, task_count, splits, first, count = entry
        tasks = db.execute(f"SELECT {', '.join(TASK_COLUMNS)} FROM tasks WHERE rowid >= ? AND rowid < ? "
                           "ORDER BY rowid", (first, first + count)).fetchall()
    finally:
        db.execute("COMMIT")
    return DatasetRows(fingerprint=fingerprint, complete=bool(complete), found_kind=json.loads(found_kind),
                       task_count=task_count, splits=[tuple(s) for s in json.loads(splits)], tasks=tasks)


def write_rows(db: sqlite3.Connection, env_id: str, rows: DatasetRows, current: Callable[[], str | None]) -> bool:
    """Keep `rows` as the dataset's entry, in one transaction, if `current()` (its index's fingerprint now) is still
    the one they were derived from: a writer that read an index since replaced never puts back older rows than the
    indexer that replaced it wrote. Whether they were written."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if current() != rows.fingerprint:
            db.execute("ROLLBACK")
            return False
        db.execute("DELETE FROM tasks WHERE rowid >= (SELECT first FROM datasets WHERE id = ?) "
                   "AND rowid < (SELECT first + rows FROM datasets WHERE id = ?)", (env_id, env_id))
        first = (db.execute("SELECT max(rowid) FROM tasks").fetchone()[0] or 0) + 1
        db.executemany(f"INSERT INTO tasks (rowid, {', '.join(TASK_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       ((key, *values) for key, values in enumerate(rows.tasks, first)))
        db.execute("INSERT OR REPLACE INTO datasets (id, fingerprint, complete, found_kind, task_count, splits, first, "
                   "rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (env_id, rows.fingerprint, int(rows.complete), json.dumps(rows.found_kind), rows.task_count,
                    json.dumps(rows.splits), first, len(rows.tasks)))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return True


def entries(db: sqlite3.Connection, ids: Iterable[str]) -> dict[str, tuple]:
    """(fingerprint, complete, found kind, task count, splits, first, rows) of each of `ids` the cache holds."""
    wanted = set(ids)
    return {env_id: (fingerprint, bool(complete), json.loads(found), count, [tuple(s) for s in json.loads(splits)],
                     first, rows)
            for env_id, fingerprint, complete, found, count, splits, first, rows in
            db.execute("SELECT id, fingerprint, complete, found_kind, task_count, splits, first, rows FROM datasets")
            if env_id in wanted}
