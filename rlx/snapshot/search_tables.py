"""The search tables: the environment search's sets (env_sets) and the two word indexes (envs_fts, tasks_fts).

env_sets holds, for every stored word, for every kind and for every tag, the environments (envs.rowid) that have it,
as a compressed bitmap (Roaring, the pyroaring package). A search then never walks its matches: a word is the union
of the words it begins (a range of this table), the filters are intersections, the total and every facet count are
cardinalities of intersections, all done in C over a few kilobytes. A common word ("agent", a third of the catalog)
costs what a rare one costs. See rlx/snapshot/env_sets.py for the reading side. Words come from `search_blob`, which
is already the environment's words exactly as rlx/catalog/words.py cuts them, so the sets answer the same rule as a
substring check on the blob would.

A small catalog's build makes the sets from the rows it holds (rlx/snapshot/build.py) and the word indexes in its
own process (build_in_place); an hourly build keeps the previous snapshot's task word index and brings it up to date
(rlx/snapshot/task_keys.py). A large catalog's build has a second process build the word indexes while it writes the
rows (rlx/snapshot/search_process.py runs this file as a program and feeds it the rows as they are written), which
takes their tokenizing, the largest part of a build from nothing, off the build's own processor; an hourly one has
it build the environments' word index and the sets (FedBuild). This file therefore imports nothing of rlx: the
second process starts in a tenth of a second instead of loading the app.
"""

from __future__ import annotations

import pickle
import sqlite3
import sys
from collections import defaultdict
from urllib.parse import quote

from pyroaring import BitMap

# One table for every set: facet 'word' (key: a stored word), 'kind', 'tag', and 'all' (every environment).
TABLE = ("CREATE TABLE env_sets (facet TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, members BLOB NOT NULL, "
         "PRIMARY KEY (facet, key)) WITHOUT ROWID")
INSERT_SETS = "INSERT INTO env_sets (facet, key, n, members) VALUES (?, ?, ?, ?)"
FTS_TABLES = ("envs_fts", "tasks_fts")
# Terms gathered in memory (up to this) before a segment is written: a catalog's index comes out as one segment,
# so the merge after it has next to nothing to do. Only what the terms need is allocated: ~150 MB at 10×.
FTS_HASH_BYTES = 256 * 1024 * 1024


class EnvSets:
    """env_sets' contents, gathered an environment and a tag at a time."""

    def __init__(self):
        # Each word's rowids are listed and made a set at the end (appending is cheaper than adding to a set, and
        # the set drops a rowid listed twice, from a word met twice in one blob).
        self.words: defaultdict[str, list[int]] = defaultdict(list)
        self.kinds: defaultdict[str, BitMap] = defaultdict(BitMap)
        self.tags: defaultdict[str, BitMap] = defaultdict(BitMap)
        self.everyone = BitMap()

    def add_env(self, rowid: int, kind: str, blob: str) -> None:
        self.everyone.add(rowid)
        self.kinds[kind].add(rowid)
        for word in blob.split():
            self.words[word].append(rowid)

    def add_tag(self, tag: str, rowid: int) -> None:
        self.tags[tag].add(rowid)

    def write(self, db: sqlite3.Connection) -> None:
        db.execute(TABLE)
        db.executemany(INSERT_SETS, self._rows())

    def _rows(self):
        yield set_row("all", "", self.everyone)
        for word, rowids in self.words.items():
            yield set_row("word", word, BitMap(rowids))
        for facet, groups in (("kind", self.kinds), ("tag", self.tags)):
            for key, members in groups.items():
                yield set_row(facet, key, members)


def set_row(facet: str, key: str, members: BitMap) -> tuple:
    """One env_sets row (the set is stored as its smallest form; equal sets store the same bytes)."""
    members.run_optimize()  # long runs (a kind's rowids are often consecutive) stored as ranges
    return facet, key, len(members), members.serialize()


def size_fts(db: sqlite3.Connection, tables: tuple[str, ...] = FTS_TABLES) -> None:
    for table in tables:
        db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', {FTS_HASH_BYTES})")


def optimize_fts(db: sqlite3.Connection, tables: tuple[str, ...] = FTS_TABLES) -> None:
    for table in tables:
        db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def build_in_place(db: sqlite3.Connection, tables: tuple[str, ...]) -> None:
    """Fill these word indexes from the rows already in `db` (inside the build's transaction)."""
    size_fts(db, tables)
    for table in tables:
        db.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
    optimize_fts(db, tables)


# -- the second process -----------------------------------------------------------------------------------------


class FedBuild:
    """The search tables written into their own file from the rows the build sends, in the build's order.

    Task keys are not sent: a build from nothing gives its tasks consecutive keys from `first_key` in the order it
    writes them (rlx/snapshot/task_keys.py), so they are numbered here the same way. Rows go into the FTS tables
    one INSERT ... VALUES at a time, as `rebuild` adds them, and nothing here writes many rows in one statement:
    such a statement inside a transaction opens a savepoint, at which FTS5 writes out what it has gathered so far,
    and a segment per batch cost twice the tokenizing to write and merge.
    """

    def __init__(self, path: str, fts: tuple[str, ...], tables: tuple[str, ...], first_key: int, sets: bool):
        self.db = db = sqlite3.connect(_uri(path), uri=True, isolation_level=None)
        db.execute("PRAGMA journal_mode=OFF")  # a failed build throws this file away
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN")
        for statement in fts:
            db.execute(statement)
        self.tables = tables  # the word indexes `fts` makes
        size_fts(db, tables)
        self.next_key = first_key
        self.sets = EnvSets() if sets else None  # an hourly build's: its tasks' words are kept, nothing to tokenize

    def add(self, envs: list[tuple[int, str, str]], tasks: list[tuple[str, str]], tags: list[tuple[str, int]]
            ) -> None:
        """`envs`: (rowid, search_blob, kind); `tasks`: (title, brief, words), in the order of their keys; `tags`: (tag,
        environment rowid)."""
        db = self.db
        db.executemany("INSERT INTO envs_fts (rowid, search_blob) VALUES (?, ?)", ((r, b) for r, b, _ in envs))
        if tasks:
            db.executemany("INSERT INTO tasks_fts (rowid, title, brief, words) VALUES (?, ?, ?, ?)",
                           ((key, *text) for key, text in enumerate(tasks, self.next_key)))
            self.next_key += len(tasks)
        if self.sets is not None:
            for rowid, blob, kind in envs:
                self.sets.add_env(rowid, kind, blob)
            for tag, rowid in tags:
                self.sets.add_tag(tag, rowid)

    def finish(self) -> None:
        db = self.db
        optimize_fts(db, self.tables)
        if self.sets is not None:
            self.sets.write(db)
        db.execute("COMMIT")
        db.close()


def _uri(path: str, options: str = "") -> str:
    return f"file:{quote(path)}{options}"


def serve(stream) -> None:
    """Read the build's messages from `stream` (pickles: ("start", FedBuild's arguments), then ("add", envs,
    tasks, tags) any number of times, then ("finish",)) and build; print the peak resident bytes at
    the end. Ending without "finish" is an error: the build went away, and its file is not to be used."""
    _, *start = pickle.load(stream)
    build = FedBuild(*start)
    while True:
        try:
            message = pickle.load(stream)
        except EOFError:
            raise SystemExit("the snapshot build went away before it finished") from None
        if message[0] == "finish":
            build.finish()
            print(_peak_rss(), flush=True)
            return
        build.add(*message[1:])


def _peak_rss() -> int:
    """This program's own peak resident bytes. The kernel's rusage figure is no use here: it counts the memory of
    the build it was forked from."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


if __name__ == "__main__":
    serve(sys.stdin.buffer)
