"""The environment search's sets, written once at build time: for every stored word, for every kind and for every
tag, the environments (envs.rowid) that have it, as a compressed bitmap (Roaring, the pyroaring package).

A search then never walks its matches: a word is the union of the words it begins (a range of this table), the
filters are intersections, the total and every facet count are cardinalities of intersections, all done in C over
a few kilobytes. A common word ("agent", a third of the catalog) costs what a rare one costs. See
rlx/snapshot/env_sets.py for the reading side.

Words come from `search_blob`, which is already the environment's words exactly as rlx/catalog/words.py cuts
them, so the sets answer the same rule as a substring check on the blob would.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from pyroaring import BitMap

# One table for every set: facet 'word' (key: a stored word), 'kind', 'tag', and 'all' (every environment).
TABLE = ("CREATE TABLE env_sets (facet TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, members BLOB NOT NULL, "
         "PRIMARY KEY (facet, key)) WITHOUT ROWID")


def build_env_sets(db: sqlite3.Connection) -> None:
    """Fill env_sets from the envs and env_tags rows already in `db` (inside the build's transaction)."""
    db.execute(TABLE)
    db.executemany("INSERT INTO env_sets (facet, key, n, members) VALUES (?, ?, ?, ?)", _rows(db))


def _rows(db: sqlite3.Connection):
    # Each word's set grows as the rows are read (a word met twice in one blob is added once: a set has no
    # duplicates), cheaper than gathering lists of rowids first.
    words: defaultdict[str, BitMap] = defaultdict(BitMap)
    kinds: defaultdict[str, BitMap] = defaultdict(BitMap)
    everyone = BitMap()
    for rowid, kind, blob in db.execute("SELECT rowid, kind, search_blob FROM envs"):
        everyone.add(rowid)
        kinds[kind].add(rowid)
        for word in blob.split():
            words[word].add(rowid)
    yield _row("all", "", everyone)
    for facet, groups in (("word", words), ("kind", kinds)):
        for key, members in groups.items():
            yield _row(facet, key, members)
    for tag, joined in db.execute("SELECT tag, group_concat(env_rowid) FROM env_tags GROUP BY tag"):
        yield _row("tag", tag, BitMap(map(int, joined.split(","))))


def _row(facet: str, key: str, members: BitMap) -> tuple:
    members.run_optimize()  # long runs (a kind's rowids are often consecutive) stored as ranges
    return facet, key, len(members), members.serialize()
