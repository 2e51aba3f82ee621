"""The index of runs: a small SQLite table in the store (runs/index.sqlite), one row per run, written by the job
each time a record changes. Pages that list runs query it; nothing scans run files.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from rlx.runs.outcome import of_run
from rlx.runs.record import RunRecord
from rlx.runs.usage import UNKNOWN
from rlx.store import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    env_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT,
    sandbox TEXT NOT NULL,
    visitor TEXT,
    visibility TEXT NOT NULL,
    status TEXT NOT NULL,
    scored INTEGER NOT NULL,
    reward REAL,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
"""
# Columns added after the first release: an older index gains them (ALTER TABLE) before the indexes below.
ADDED_COLUMNS = {"kind": "TEXT", "reason": "TEXT", "seconds": "REAL", "cost": "REAL", "batch": "TEXT",
                 "private_dataset": "INTEGER NOT NULL DEFAULT 0", "purpose": "TEXT",
                 "cost_unknown": "INTEGER"}  # 1: the run used a model whose price could not be read (`cost` is NULL)
INDEXES = """
CREATE INDEX IF NOT EXISTS runs_by_task ON runs (env_id, ref, created_at);
CREATE INDEX IF NOT EXISTS runs_by_visitor ON runs (visitor, created_at);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
CREATE INDEX IF NOT EXISTS runs_by_env ON runs (env_id, created_at);
CREATE INDEX IF NOT EXISTS runs_by_batch ON runs (batch) WHERE batch IS NOT NULL;
-- The community's rows only (public, finished, scored), covering what its pages read, so a leaderboard (with its
-- cost per solved task) or a heatmap reads this small index and never the table.
CREATE INDEX IF NOT EXISTS runs_community ON runs (env_id, agent, model, ref, reward, cost, cost_unknown)
    WHERE visibility='public' AND status='finished' AND scored=1 AND purpose IS NULL;
CREATE INDEX IF NOT EXISTS runs_community_recent ON runs (finished_at)
    WHERE visibility='public' AND status='finished' AND scored=1 AND purpose IS NULL;
-- One environment's latest: walking the global order would pass every newer run of other environments first.
CREATE INDEX IF NOT EXISTS runs_community_env_recent ON runs (env_id, finished_at)
    WHERE visibility='public' AND status='finished' AND scored=1 AND purpose IS NULL;
-- How one environment's ended public rollouts ended, per agent and model (community.outcomes), from this index
-- alone: read through runs_by_env, the 5,000 runs of an environment were 12 of its community page's 30 ms.
CREATE INDEX IF NOT EXISTS runs_ended_public ON runs (env_id, agent, model, kind)
    WHERE visibility='public' AND purpose IS NULL AND status IN ('finished', 'failed', 'stopped');
"""
# A community row: public, finished, scored, and run by a person (a health check's runs have a purpose).
_COMMUNITY_ROW = "{r}.visibility='public' AND {r}.status='finished' AND {r}.scored=1 AND {r}.purpose IS NULL"
# Per environment and task, the community's run count and reward sum, kept by triggers on every write, so the
# list of environments sums a few thousand rows instead of every run. Created (and filled from `runs`) once.
COMMUNITY_TASKS = [
    "CREATE TABLE community_tasks (env_id TEXT NOT NULL, ref TEXT NOT NULL, runs INTEGER NOT NULL, "
    "reward_sum REAL NOT NULL, PRIMARY KEY (env_id, ref)) WITHOUT ROWID",
    "INSERT INTO community_tasks SELECT env_id, ref, COUNT(*), SUM(reward) FROM runs WHERE "
    + _COMMUNITY_ROW.format(r="runs") + " GROUP BY env_id, ref",
    *[f"CREATE TRIGGER community_{name} AFTER {event} ON runs WHEN {_COMMUNITY_ROW.format(r='new')} BEGIN "
      "INSERT INTO community_tasks VALUES (new.env_id, new.ref, 1, new.reward) ON CONFLICT (env_id, ref) "
      "DO UPDATE SET runs=runs+1, reward_sum=reward_sum+excluded.reward_sum; END"
      for name, event in (("insert", "INSERT"), ("update_new", "UPDATE"))],
    *[f"CREATE TRIGGER community_{name} AFTER {event} ON runs WHEN {_COMMUNITY_ROW.format(r='old')} BEGIN "
      "UPDATE community_tasks SET runs=runs-1, reward_sum=reward_sum-old.reward "
      "WHERE env_id=old.env_id AND ref=old.ref; "
      "DELETE FROM community_tasks WHERE env_id=old.env_id AND ref=old.ref AND runs<=0; END"
      for name, event in (("update_old", "UPDATE"), ("delete", "DELETE"))],
]
# Per environment, a number that grows whenever one of its community rows is written or leaves the community (a
# withdrawn run), kept by triggers, so a page may keep what it drew from those rows (the heatmap) until it grows.
_BUMP = ("INSERT INTO community_versions VALUES ({r}.env_id, 1) "
         "ON CONFLICT (env_id) DO UPDATE SET version=version+1;")
COMMUNITY_VERSIONS = [
    "CREATE TABLE community_versions (env_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID",
    f"CREATE TRIGGER community_version_insert AFTER INSERT ON runs WHEN {_COMMUNITY_ROW.format(r='new')} "
    f"BEGIN {_BUMP.format(r='new')} END",
    f"CREATE TRIGGER community_version_update AFTER UPDATE ON runs WHEN {_COMMUNITY_ROW.format(r='new')} OR "
    f"{_COMMUNITY_ROW.format(r='old')} BEGIN {_BUMP.format(r='new')} {_BUMP.format(r='old')} END",
    f"CREATE TRIGGER community_version_delete AFTER DELETE ON runs WHEN {_COMMUNITY_ROW.format(r='old')} "
    f"BEGIN {_BUMP.format(r='old')} END",
]
COLUMNS = ("id", "env_id", "ref", "agent", "model", "sandbox", "visitor", "visibility", "status", "scored",
           "reward", "created_at", "finished_at", *ADDED_COLUMNS)


def index_path(store: Store) -> Path:
    return store.runs_dir / "index.sqlite"


def _connect(store: Store, any_thread: bool = False) -> sqlite3.Connection:
    path = index_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=not any_thread)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA busy_timeout=10000")
    if db.execute("PRAGMA user_version").fetchone()[0] >= PREPARED_LEVEL:
        return db  # made as this module says by an earlier connection: one read instead of some twenty statements
    with _PREPARING:
        _prepare(db)
    return db


# Two connections preparing a new file at once (four visitors' threads opening the first page of a new store did):
# SQLite may answer "database is locked" at once, without waiting out busy_timeout, while the other turns the file
# to WAL. Threads of one process take turns; a connection of another process is tried again until the timeout.
_PREPARING = threading.Lock()
_PREPARE_TIMEOUT_S = 10.0


def _prepare(db: sqlite3.Connection) -> None:
    deadline = time.monotonic() + _PREPARE_TIMEOUT_S
    while True:
        try:
            _prepare_once(db)
            return
        except sqlite3.OperationalError as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _prepare_once(db: sqlite3.Connection) -> None:
    """The tables, indexes and triggers as this module says; each step leaves alone what another made."""
    db.execute("PRAGMA journal_mode=WAL")  # kept by the file itself
    db.executescript(SCHEMA)
    _add_columns(db)
    _renew_community(db)
    db.executescript(INDEXES)
    for table, statements in (("community_tasks", COMMUNITY_TASKS), ("community_versions", COMMUNITY_VERSIONS)):
        if not _has_table(db, table):
            db.execute("BEGIN IMMEDIATE")  # one process creates and fills it; the others find it made
            if not _has_table(db, table):
                for statement in statements:
                    db.execute(statement)
            db.execute("COMMIT")
    db.execute(f"PRAGMA user_version={PREPARED_LEVEL}")


def _add_columns(db: sqlite3.Connection) -> None:
    have = {r["name"] for r in db.execute("PRAGMA table_info(runs)")}
    missing = [c for c in ADDED_COLUMNS if c not in have]
    if not missing:
        return
    db.execute("BEGIN IMMEDIATE")
    have = {r["name"] for r in db.execute("PRAGMA table_info(runs)")}  # another process may have added them
    for column in missing:
        if column not in have:
            db.execute(f"ALTER TABLE runs ADD COLUMN {column} {ADDED_COLUMNS[column]}")
    db.execute("COMMIT")


# PRAGMA user_version of an index whose community indexes, triggers and tables are made as this module says now
# (1: they leave a health check's runs out; 3: the leaderboard's index covers the costs). An older file's are
# dropped once and made again.
COMMUNITY_LEVEL = 3
# PRAGMA user_version once every table, column, index and trigger above is made: a connection that finds it opens
# the file and reads one number (a request opening the index paid ~20 statements each time before). Raise it with
# any change above, so each file is made again once.
PREPARED_LEVEL = 5
_COMMUNITY_MADE = ("INDEX runs_community", "INDEX runs_community_recent", "INDEX runs_community_env_recent",
                   *(f"TRIGGER community_{n}" for n in ("insert", "update_new", "update_old", "delete")),
                   *(f"TRIGGER community_version_{n}" for n in ("insert", "update", "delete")),
                   "TABLE community_tasks", "TABLE community_versions")


def _renew_community(db: sqlite3.Connection) -> None:
    if db.execute("PRAGMA user_version").fetchone()[0] >= COMMUNITY_LEVEL:
        return
    db.execute("BEGIN IMMEDIATE")
    if db.execute("PRAGMA user_version").fetchone()[0] < COMMUNITY_LEVEL:  # another process may have done it
        for made in _COMMUNITY_MADE:
            db.execute(f"DROP {made.split()[0]} IF EXISTS {made.split()[1]}")
        if _has_table(db, "health_checks"):  # a check's runs written before they carried their purpose
            db.execute("UPDATE runs SET purpose='health' WHERE purpose IS NULL AND batch IN "
                       "(SELECT batch_id FROM health_checks)")
        db.execute(f"PRAGMA user_version={COMMUNITY_LEVEL}")
    db.execute("COMMIT")


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


def upsert(store: Store, record: RunRecord) -> None:
    upsert_many(store, [record])


def upsert_many(store: Store, records: list[RunRecord]) -> None:
    """Write records' rows in one transaction (the job writes one; a benchmark or a rebuild writes many)."""
    marks = ", ".join("?" for _ in COLUMNS)
    updates = ", ".join(f"{c}=excluded.{c}" for c in COLUMNS if c != "id")
    sql = f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({marks}) ON CONFLICT(id) DO UPDATE SET {updates}"
    with closing(_connect(store)) as db:
        db.execute("BEGIN")
        db.executemany(sql, [_row(r) for r in records])
        db.execute("COMMIT")


def remove(store: Store, run_id: str) -> None:
    """Forget a run that never started (its start was undone)."""
    with closing(_connect(store)) as db:
        db.execute("DELETE FROM runs WHERE id=?", (run_id,))


def _row(record: RunRecord) -> list:
    ended = of_run(record)
    row = {**{c: getattr(record, c, None) for c in COLUMNS}, "scored": int(record.scored), "reward": record.reward,
           "kind": ended.kind, "reason": ended.reason[:300], "seconds": (record.timings or {}).get("total"),
           "cost": (record.usage or {}).get("cost_usd"), "private_dataset": int(bool(record.private_dataset)),
           "cost_unknown": int((record.usage or {}).get("cost") == UNKNOWN)}
    return [row[c] for c in COLUMNS]


def connect(store: Store) -> sqlite3.Connection:
    """A connection for modules that write the index or hold a transaction; the caller closes it."""
    return _connect(store)


# Connections kept open for reading, per file and process. Each is lent to one reader at a time (a request's thread
# or greenlet takes it off the list and puts it back), so one opened in another thread may serve this one: SQLite
# serializes a connection's use itself, and the lending keeps two readers off one connection. A new connection
# parses the index's schema (triggers included) on its first statement: opening, reading and closing two per
# environment page was a third of its CPU (10.0 ms in process; 6.4 with these).
_idle: dict[tuple, list[sqlite3.Connection]] = {}
MAX_IDLE_FILES, MAX_IDLE_PER_FILE = 8, 4


@contextmanager
def reading(store: Store) -> Iterator[sqlite3.Connection]:
    """A connection to the index for statements that leave no transaction open, taken from those kept open, or
    made; put back afterwards. A file made anew (a test's store, a restored backup) or checkpointed since
    (its ctime moved) gets new ones."""
    path = index_path(store)
    try:
        info = os.stat(path)
        key = (str(path), info.st_dev, info.st_ino, info.st_ctime_ns, os.getpid())
    except FileNotFoundError:
        key = None
    idle = _idle.get(key, []) if key else []
    db = idle.pop() if idle else _connect(store, any_thread=True)
    try:
        yield db
    except BaseException:
        db.close()
        raise
    if key is None or db.in_transaction or len(idle) >= MAX_IDLE_PER_FILE:
        db.close()
        return
    if key not in _idle and len(_idle) >= MAX_IDLE_FILES:  # the oldest file's connections go (tests make many)
        for stale in _idle.pop(next(iter(_idle))):
            stale.close()
    _idle.setdefault(key, idle).append(db)


def for_task(store: Store, env_id: str, ref: str, visitor: str | None, limit: int = 50) -> list[dict]:
    """A task's runs that this visitor may see (theirs, and public ones), newest first."""
    with reading(store) as db:
        rows = db.execute(
            "SELECT * FROM runs WHERE env_id=? AND ref=? AND (visibility='public' OR visitor=?) "
            "ORDER BY created_at DESC LIMIT ?", (env_id, ref, visitor or "", min(limit, 500))).fetchall()
    return [dict(r) for r in rows]


def for_visitor(store: Store, visitor: str, limit: int = 100) -> list[dict]:
    with reading(store) as db:
        rows = db.execute("SELECT * FROM runs WHERE visitor=? ORDER BY created_at DESC LIMIT ?",
                          (visitor, min(limit, 500))).fetchall()
    return [dict(r) for r in rows]


def with_status(store: Store, statuses: tuple[str, ...], limit: int = 1000) -> list[dict]:
    marks = ", ".join("?" for _ in statuses)
    with reading(store) as db:
        rows = db.execute(f"SELECT * FROM runs WHERE status IN ({marks}) ORDER BY created_at LIMIT ?",
                          (*statuses, limit)).fetchall()
    return [dict(r) for r in rows]
