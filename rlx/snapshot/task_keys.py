"""Task keys kept from hour to hour: how a build writes the tasks, their facet table, the splits and the task word
index.

Each dataset's tasks are one block of consecutive rowids (task keys), and name their environment by its env_key,
which an environment keeps from snapshot to snapshot (envs.rowid follows trending and moves every hour). A build
from nothing (FreshTasks) numbers the blocks in catalog order from KEY_BASE up, so the task search's catalog order
(task key order) is trending order. An hourly build (KeptTasks) starts as a copy of the previous snapshot's file
that keeps its tasks, facets, splits, task word index and its list of words (start_from_previous; the list:
rlx/snapshot/task_terms.py); then a dataset that changed or left loses its rows and their words, and each changed
or new dataset gets a new block below the lowest key, so the task search lists the datasets changed most recently
first, then the rest in the order of the last build from nothing. Only the changed tasks are tokenized: about 1 %
of them in an hour (twice: into the word index, and into a word index of their own whose words are listed).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from urllib.parse import quote

from rlx.snapshot import task_terms
from rlx.snapshot.dataset_rows import DatasetRows
from rlx.snapshot.schema import FTS, PAGE_SIZE, TABLES, TASK_INDEXES

# Keys stay in 1..2**31-1: the task facet sample multiplies a key by a 32-bit constant in SQLite's 64-bit integers
# (schema.DRAW_HASH_SQL). A build from nothing starts in the middle, so hourly blocks have 2**30 keys to go down into.
KEY_BASE = 2**30
# An hourly build is made from nothing instead once the keys spread over more than twice the tasks plus this: the
# blocks left behind by changed datasets make the sitemap's task shards (ranges of keys) sparse, and the task word
# index keeps their deletions until its segments merge. At 1 % of datasets changed an hour, that is every few days.
KEY_SLACK = 100_000
# The previous snapshot's tables an hourly build keeps (with their indexes, and tasks_fts with its shadow tables).
KEPT = ("tasks", "task_facets", "env_splits", "tasks_fts", "task_terms")
KEPT_TABLES = ("tasks", "task_facets", "env_splits", "tasks_fts_data", "tasks_fts_idx", "tasks_fts_docsize",
               "tasks_fts_config", "task_terms")
# How much larger than the last build from nothing (schema.COMPACT_PAGES) a file may grow before the next hourly
# build repacks the kept tables (start_from_previous): at 1 % of datasets changed an hour, every six hours or so.
REPACK_GROWTH = 0.03
_TASK_COLUMNS = "env_key, ref, title, brief, category, difficulty, grading, runtime, runs_here, tags, words"
_FACETS_BELOW = ("INSERT INTO task_facets (rowid, env_key, category, difficulty) "
                 "SELECT rowid, env_key, category, difficulty FROM tasks WHERE rowid < ?")


def keys_worn(first: int | None, last: int | None, tasks: int) -> bool:
    """Whether the previous snapshot's task keys (`first`..`last` over `tasks` rows) call for a build from nothing."""
    if first is None:
        return False
    return last - first + 1 > 2 * tasks + KEY_SLACK or first <= tasks + KEY_SLACK


def repack_due(pages: int, compact: int | None) -> bool:
    """Whether an hourly build starting from a previous snapshot of `pages` pages repacks its kept tables, `compact`
    being the page count of the last build from nothing in its line (None: unknown)."""
    return compact is None or pages > compact * (1 + REPACK_GROWTH)


def start_from_previous(path: str, previous: str, repack: bool) -> None:
    """Start the snapshot at `path` (a new file) from the previous snapshot: its kept tables as they are, every other
    table made again, empty. Their own connection, closed before the build opens its transaction: FTS5 caches an
    index's structure per connection.

    Mostly as a copy of the file, a plain read and write (0.04 s at 1x), with the other tables dropped: their pages
    are taken again by the build's own inserts (the environment tables are about as large every hour). But rows
    deleted among the kept tasks leave room in their pages that a copy keeps, and the word index gathers segments:
    half a percent of the file an hour. So once the file has grown by REPACK_GROWTH (`repack`), the kept tables are
    copied row by row into a new file instead (`INSERT INTO t SELECT * FROM previous.t`, into an empty table of the
    same shape with its indexes made: the stored rows move without being decoded, and fill their pages), and the
    word index is merged into one segment: 0.35 s at 1x, about 3 s of CPU at 10x.
    """
    if not repack:
        shutil.copyfile(previous, path)
    db = sqlite3.connect(f"file:{quote(path)}", uri=True, isolation_level=None)
    try:
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        # A dropped table's pages are zeroed: no byte of an environment that left the catalog stays in the file.
        db.execute("PRAGMA secure_delete=ON")
        db.execute("BEGIN")
        if repack:
            db.execute("ATTACH ? AS previous", (f"file:{quote(previous)}?mode=ro&immutable=1",))
            for statement in (*TABLES, *FTS, *TASK_INDEXES):  # the task indexes first: the copy moves their entries
                db.execute(statement)
            for table in KEPT_TABLES:
                db.execute(f"DELETE FROM main.{table}")  # FTS5 writes its first rows as its table is created
                db.execute(f"INSERT INTO main.{table} SELECT * FROM previous.{table}")
            db.execute("COMMIT")
            db.execute("BEGIN")  # a new transaction, so FTS5 reads the index just copied in
            db.execute("INSERT INTO tasks_fts (tasks_fts) VALUES ('optimize')")
        else:
            remade = [statement for statement in (*TABLES, *FTS) if created_table(statement) not in KEPT]
            for statement in remade:
                db.execute(f"DROP TABLE IF EXISTS {created_table(statement)}")  # a virtual table takes its shadow tables
            db.execute("DROP TABLE IF EXISTS env_sets")  # made by the build's EnvSets.write, not from TABLES
            for statement in remade:
                db.execute(statement)
        db.execute("COMMIT")
    finally:
        db.close()


def created_table(statement: str) -> str:
    """The table a CREATE [VIRTUAL] TABLE statement makes."""
    return re.match(r"CREATE (?:VIRTUAL )?TABLE (\w+)", statement).group(1)


class FreshTasks:
    """A build from nothing: each dataset's tasks written as they come, in blocks from KEY_BASE up."""

    kept_count = 0  # datasets whose tasks were kept

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.next_key = KEY_BASE

    def keep(self, env_id: str) -> None:
        raise AssertionError("a build from nothing keeps no dataset's tasks")

    def write(self, env_key: int, env_id: str, rows: DatasetRows) -> None:
        db = self.db
        db.executemany("INSERT INTO env_splits (env_id, config, split, rows) VALUES (?, ?, ?, ?)",
                       ((env_id, *split) for split in rows.splits))
        db.executemany(f"INSERT INTO tasks (rowid, {_TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       ((key, env_key, *values) for key, values in enumerate(rows.tasks, self.next_key)))
        self.next_key += len(rows.tasks)

    def finish(self) -> None:
        if self.next_key > 2**31:
            raise ValueError("more tasks than task keys")
        self.db.execute(_FACETS_BELOW, (2**31,))


class KeptTasks:
    """An hourly build, on the tables start_from_previous copied: unchanged datasets' tasks stay where they are;
    `previous` maps each dataset that had rows in the previous snapshot to its env_key there."""

    def __init__(self, db: sqlite3.Connection, previous: dict[str, int]):
        self.db = db
        self.previous = previous
        self.kept: set[str] = set()
        self.written: set[str] = set()
        self.staged = 0
        # A changed dataset's rows wait here, in catalog order, until the build knows how many keys they need.
        db.execute(f"CREATE TEMP TABLE new_tasks (seq INTEGER PRIMARY KEY, {_TASK_COLUMNS})")
        db.execute("CREATE TEMP TABLE new_splits (env_id TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL, "
                   "rows INTEGER NOT NULL)")

    def keep(self, env_id: str) -> None:
        self.kept.add(env_id)

    def write(self, env_key: int, env_id: str, rows: DatasetRows) -> None:
        db = self.db
        db.executemany("INSERT INTO temp.new_splits (env_id, config, split, rows) VALUES (?, ?, ?, ?)",
                       ((env_id, *split) for split in rows.splits))
        db.executemany(f"INSERT INTO temp.new_tasks ({_TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       ((env_key, *values) for values in rows.tasks))
        self.written.add(env_id)
        self.staged += len(rows.tasks)

    @property
    def kept_count(self) -> int:
        return len(self.kept)

    def finish(self) -> None:
        db = self.db
        dropped = [(key, env_id) for env_id, key in self.previous.items() if env_id not in self.kept]
        db.execute("CREATE TEMP TABLE dropped (env_key INTEGER PRIMARY KEY, env_id TEXT NOT NULL)")
        db.executemany("INSERT INTO temp.dropped (env_key, env_id) VALUES (?, ?)", dropped)
        # The word index holds no text (its content is the tasks table): deleting a row's words needs the words it
        # was indexed with, read from the row before it goes. So does the list of words (task_terms.py).
        removed = task_terms.words_of_rows(db, "SELECT t.title, t.brief, t.words FROM temp.dropped d "
                                               "JOIN tasks t ON t.env_key = d.env_key")
        db.execute("INSERT INTO tasks_fts (tasks_fts, rowid, title, brief, words) SELECT 'delete', t.rowid, t.title, "
                   "t.brief, t.words FROM temp.dropped d JOIN tasks t ON t.env_key = d.env_key")
        for table in ("tasks", "task_facets"):
            db.execute(f"DELETE FROM {table} WHERE env_key IN (SELECT env_key FROM temp.dropped)")
        db.execute("DELETE FROM env_splits WHERE env_id IN (SELECT env_id FROM temp.dropped)")
        db.execute("INSERT INTO env_splits SELECT * FROM temp.new_splits")
        lowest = db.execute("SELECT min(rowid) FROM tasks").fetchone()[0] or KEY_BASE
        if lowest - self.staged < 1:  # keys_worn makes a build from nothing long before
            raise ValueError("no task keys left below the lowest")
        db.execute(f"INSERT INTO tasks (rowid, {_TASK_COLUMNS}) SELECT ? + seq, {_TASK_COLUMNS} FROM temp.new_tasks "
                   "ORDER BY seq", (lowest - self.staged - 1,))
        db.execute("INSERT INTO tasks_fts (rowid, title, brief, words) SELECT rowid, title, brief, words FROM tasks "
                   "WHERE rowid < ?", (lowest,))
        db.execute(_FACETS_BELOW, (lowest,))
        added = task_terms.words_of_rows(db, "SELECT title, brief, words FROM tasks WHERE rowid < ?", (lowest,))
        task_terms.update_words(db, added, removed)
        for table in ("new_tasks", "new_splits", "dropped"):
            db.execute(f"DROP TABLE temp.{table}")
        # A deletion only marks the words deleted until their segment is merged: while a dataset that left the
        # catalog (private, gated, deleted) still has words in the index, they are merged out now, at the cost of
        # rewriting the index (no tokenizing): 0.2 s of CPU at 1x, 1.6 s at 10x.
        # Otherwise FTS5's own automerge keeps the segments few: measured at 1x, after 24 hourly builds 8 segments,
        # the file 3.5 % larger than from nothing, and the prefix and word searches no slower. A bounded 'merge'
        # each hour bought little (5 segments, 42.1 against 42.3 MB), and a negative one added two levels an hour.
        if any(env_id not in self.written for _, env_id in dropped):
            db.execute("INSERT INTO tasks_fts (tasks_fts) VALUES ('optimize')")
