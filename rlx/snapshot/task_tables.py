"""A build from nothing's task tables, made from the rows cache (rlx/snapshot/rows_cache.py) on a thread of their own
while the build writes the environments.

The tasks, their facets, the splits, the task word index (tasks_fts) and its list of words (task_terms) need nothing
but the cached rows and the order of the datasets. So a thread with a connection of its own writes them into a side
file (`<build file>.tasks`), and the build copies them in whole at the end (`INSERT INTO t SELECT * FROM side.t` into
an empty table of the same shape: the stored rows and index entries move without being decoded). Every statement of
the thread is one call into SQLite, which runs without Python's lock: tokenizing the tasks, the largest part of the
build, goes on on the other processor while the build's own thread makes the environments' rows. The thread also
analyzes and checks its file, so the build copies in tables already checked, with their statistics, as an hourly
build copies the previous snapshot's (rlx/snapshot/previous.py hourly_written).

The thread reads the cache in one read transaction, so each dataset's entry, its task count and its rows are of one
state of the file even while an indexer rewrites entries: the build takes the entries as they were then (with their
fingerprints), never a mix. An entry the build expects and the cache does not hold, or a cache that cannot be read,
fails this way of building (RowsCacheError), and the build is made again from the indexes.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import sqlite3
import threading
import time
from pathlib import Path
from urllib.parse import quote

from rlx.snapshot import task_terms
from rlx.snapshot.dataset_rows import DatasetRows
from rlx.snapshot.row_sources import CachedRows, StoredIndexes
from rlx.snapshot.rows_cache import BUSY_MS, TASK_COLUMNS, RowsCacheError
from rlx.snapshot.schema import FTS, PAGE_SIZE, TABLES, TASK_INDEXES
from rlx.snapshot.search_process import shadow_tables
from rlx.snapshot.search_tables import optimize_fts, size_fts
from rlx.snapshot.task_keys import KEY_BASE

log = logging.getLogger("rlx.snapshot")

# The tables made here, in the order they are copied into the build's file.
MADE = ("tasks", "task_facets", "env_splits", "task_terms")
COPIED = (*MADE, *shadow_tables(("tasks_fts",)))
_COLUMNS = ", ".join(TASK_COLUMNS)
# Each dataset's block of task keys: (first task key, env_key, first cached rowid, rows), from the plan's JSON.
_PLAN = ("CREATE TEMP TABLE plan (first_key INTEGER PRIMARY KEY, env_key INTEGER NOT NULL, cached INTEGER NOT NULL, "
         "rows INTEGER NOT NULL)")
_FILL_PLAN = ("INSERT INTO temp.plan SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)")
_FILL_SPLITS = ("INSERT INTO env_splits (env_id, config, split, rows) SELECT value ->> 0, value ->> 1, value ->> 2, "
                "value ->> 3 FROM json_each(?)")
# The plan's blocks in key order, each a range of the cache's rowids: the rows come out in task key order.
_COPY = (f"INSERT INTO tasks (rowid, env_key, {_COLUMNS}) SELECT p.first_key + t.rowid - p.cached, p.env_key, "
         f"{', '.join('t.' + c for c in TASK_COLUMNS)} FROM temp.plan p CROSS JOIN cache.tasks t "
         "WHERE t.rowid >= p.cached AND t.rowid < p.cached + p.rows")


def _made(statement: str) -> str:
    return re.match(r"CREATE (?:VIRTUAL )?TABLE (\w+)", statement).group(1)


class TaskTables:
    """The side file's builder. entries() gives what the cache holds of each dataset; start(plan) has the tasks
    copied in that order; finish(db) waits for the tables and copies them into the build's file."""

    def __init__(self, build_path: Path, cache_path: Path):
        self.path = build_path.with_name(build_path.name + ".tasks")
        self.path.unlink(missing_ok=True)
        self.cache_path = cache_path
        self._entries: queue.SimpleQueue = queue.SimpleQueue()
        self._plan: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._db: sqlite3.Connection | None = None
        self.cpu_seconds = 0.0
        self.phases: dict[str, float] = {}  # the thread's CPU seconds per step
        self._clock = 0.0
        self._thread = threading.Thread(target=self._run, name="snapshot-task-tables", daemon=True)
        self._thread.start()

    def entries(self) -> dict[str, tuple]:
        """Each cached dataset's (fingerprint, complete, found kind, task count, splits, first rowid, rows), as the
        thread's read of the cache sees them."""
        got = self._entries.get()
        if isinstance(got, BaseException):
            raise RowsCacheError(f"the rows cache could not be read ({got})") from got
        return got

    def start(self, plan: list[tuple[str, int, tuple]]) -> None:
        """Copy the tasks of these datasets, in this order: (env id, env_key, its entry as entries() gave it)."""
        self._plan.put(plan)

    def _lap(self, name: str) -> None:
        now = time.thread_time()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._clock, 3)
        self._clock = now

    def _run(self) -> None:
        started = self._clock = time.thread_time()
        try:
            self._build()
        except BaseException as exc:  # handed to the build's thread, which fails the build this way
            self._error = exc
            self._entries.put(exc)
        finally:
            self.cpu_seconds = time.thread_time() - started
            if self._db is not None:
                self._db.close()

    def _build(self) -> None:
        self._db = db = sqlite3.connect(f"file:{quote(str(self.path))}", uri=True, isolation_level=None,
                                        timeout=BUSY_MS / 1000, check_same_thread=False)
        db.executescript(f"PRAGMA page_size={PAGE_SIZE}; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                         "PRAGMA cache_size=-65536")  # a failed build throws this file away
        db.execute("ATTACH ? AS cache", (f"file:{quote(str(self.cache_path))}",))
        db.execute("BEGIN")  # the cache's entries and rows, read in one transaction: one state of the file
        rows = db.execute("SELECT id, fingerprint, complete, found_kind, task_count, splits, first, rows "
                          "FROM cache.datasets").fetchall()
        self._entries.put({env_id: (fingerprint, bool(complete), json.loads(found), count,
                                    [tuple(s) for s in json.loads(splits)], first, n)
                           for env_id, fingerprint, complete, found, count, splits, first, n in rows})
        self._lap("entries")
        plan = self._plan.get()
        if plan is None:  # the build went away
            return
        # One statement at a time: executescript would end the transaction, and with it the read of the cache.
        for statement in (*(s for s in (*TABLES, *FTS) if _made(s) in (*MADE, "tasks_fts")), _PLAN):
            db.execute(statement)
        blocks, splits, key = [], [], KEY_BASE
        for env_id, env_key, entry in plan:
            if entry[6]:  # a dataset without tasks has no block: it would share the next one's first key
                blocks.append((key, env_key, entry[5], entry[6]))
            splits.extend((env_id, *split) for split in entry[4])
            key += entry[6]
        if key > 2**31:
            raise ValueError("more tasks than task keys")
        db.execute(_FILL_PLAN, (json.dumps(blocks),))
        db.execute(_FILL_SPLITS, (json.dumps(splits),))
        copied = db.execute(_COPY).rowcount
        if copied != key - KEY_BASE:
            raise RowsCacheError(f"the rows cache gave {copied} tasks of {key - KEY_BASE}")
        db.execute("COMMIT")  # the cache is let go
        self._lap("copy")
        db.execute("BEGIN")
        db.execute("INSERT INTO task_facets (rowid, env_key, category, difficulty) "
                   "SELECT rowid, env_key, category, difficulty FROM tasks")
        for statement in TASK_INDEXES:
            db.execute(statement)
        self._lap("facets_indexes")
        size_fts(db, ("tasks_fts",))
        db.execute("INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild')")
        optimize_fts(db, ("tasks_fts",))
        self._lap("fts")
        task_terms.write_all(db)
        db.execute("COMMIT")
        self._lap("task_terms")
        # Statistics and the integrity check of these tables here, on this processor, while the build's thread
        # checks its own: the build copies them in with their statistics and checks only what it writes after.
        db.execute("ANALYZE main")  # not the cache, still attached (an indexer may be writing it)
        verdict = db.execute("PRAGMA main.quick_check").fetchone()[0]
        if verdict != "ok":  # the build is made again from the indexes, and checked whole
            raise sqlite3.DatabaseError(f"the task tables failed quick_check: {verdict}")
        self._lap("analyze_check")

    def finish(self, db: sqlite3.Connection, laps) -> dict:
        """Wait for the side file, then copy its tables and their statistics into `db` (outside any transaction,
        their tables and indexes made there and empty, and the build's own tables analyzed: sqlite_stat1 exists);
        the thread's CPU seconds."""
        self._thread.join()
        if self._error is not None:
            raise RowsCacheError(f"the task tables could not be made ({self._error})") from self._error
        laps.lap("task_tables_wait")
        db.execute("ATTACH ? AS side", (f"file:{quote(str(self.path.resolve()))}?mode=ro",))
        db.execute("BEGIN")
        for table in COPIED:
            db.execute(f"DELETE FROM main.{table}")  # FTS5 wrote its first rows as the table was created
            db.execute(f"INSERT INTO main.{table} SELECT * FROM side.{table}")
        db.execute("INSERT INTO main.sqlite_stat1 SELECT * FROM side.sqlite_stat1")
        db.execute("COMMIT")
        db.execute("DETACH side")
        laps.lap("task_tables_copy")
        return {"cpu_seconds": round(self.cpu_seconds, 3), "phases": self.phases}

    def close(self) -> None:
        """Stop the thread if it still runs (a failed build), and remove the side file."""
        if self._thread.is_alive():
            self._plan.put(None)
            if self._db is not None:
                try:
                    self._db.interrupt()
                except sqlite3.ProgrammingError:  # closed already
                    pass
            self._thread.join()
        self.path.unlink(missing_ok=True)


class CopiedTasks:
    """The build's side of a TaskTables: its datasets' tasks are the thread's to write."""

    kept_count = 0

    def keep(self, env_id: str) -> None:
        raise AssertionError("a build from nothing keeps no dataset's tasks")

    def write(self, env_key: int, env_id: str, rows: DatasetRows) -> None:
        pass

    def finish(self) -> None:
        pass


def from_cache(build_path: Path, source: StoredIndexes, public: list[tuple]) -> tuple[CachedRows, TaskTables] | None:
    """For a build from nothing of the public environments `public` ((record, env id), in rowid order): the rows
    source and the task tables' builder, with the cache brought up to date first; None when the cache cannot serve
    (the build then reads each dataset's rows itself)."""
    held = source.bring_up_to_date([env_id for record, env_id in public if record.repo_type == "dataset"])
    if held is None:
        return None
    tables = TaskTables(build_path, source.cache_path)
    try:
        entries = tables.entries()
        if not held <= entries.keys():  # taken away since (another process set a damaged file aside)
            raise RowsCacheError(f"{len(held - entries.keys())} datasets left the rows cache")
    except RowsCacheError as exc:
        log.warning("snapshot.rows_cache_unread error=%s", exc)
        tables.close()
        return None
    rows, plan = {}, []
    for env_key, (record, env_id) in enumerate(public, 1):  # a build from nothing: each env_key is its rowid
        if env_id in held:
            fingerprint, complete, found, count, splits, first, n = entry = entries[env_id]
            dataset = DatasetRows(fingerprint, complete, found, count, splits)
            if source.usable(dataset):
                rows[env_id] = dataset
                plan.append((env_id, env_key, entry))
    tables.start(plan)
    return CachedRows(rows), tables
