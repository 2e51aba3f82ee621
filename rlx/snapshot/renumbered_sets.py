"""An hourly build's environment search sets (env_sets, rlx/snapshot/search_tables.py), renumbered from the previous
snapshot's instead of cut again from every environment's words.

The sets hold rowids, and the rowids follow trending, which moves every hour: every set changes, but only by the
numbering for every environment whose card is unchanged. So each word's and tag's previous set is renumbered
(`renumber` maps a previous rowid to the new one: a list lookup per member, done in C by itemgetter), the
environments whose words were cut again (a changed card, or new) are added to the sets of their words and tags,
and a set left empty is dropped. The kinds' sets are made from the rows (a dataset's kind can change with its
index), and the set of every environment is a range. At 7,225 environments this is a quarter of splitting every
environment's words again.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from operator import itemgetter

from pyroaring import BitMap

from rlx.snapshot.search_tables import INSERT_SETS, TABLE, set_row


class RenumberedSets:
    """env_sets' contents for an hourly build. `renumber[rowid]` is the new rowid of the environment that had `rowid`
    in the previous snapshot, 0 while it has none (gone, or its words are cut again and given to add_fresh)."""

    def __init__(self, previous_rowids: int):
        self.renumber = [0] * (previous_rowids + 1)
        self.total = 0
        self.kinds: defaultdict[str, list[int]] = defaultdict(list)
        self.words: defaultdict[str, list[int]] = defaultdict(list)
        self.tags: defaultdict[str, list[int]] = defaultdict(list)
        self._tag_sets: dict[str, BitMap] | None = None

    def add_env(self, rowid: int, kind: str) -> None:
        """Every environment, in rowid order."""
        self.total = rowid
        self.kinds[kind].append(rowid)

    def add_fresh(self, rowid: int, blob: str, plain_tags: list[str]) -> None:
        """An environment whose words were cut again: its words and tags."""
        for word in dict.fromkeys(blob.split()):
            self.words[word].append(rowid)
        for tag in plain_tags:
            self.tags[tag].append(rowid)

    def tag_sets(self, db: sqlite3.Connection) -> dict[str, BitMap]:
        """Each plain tag's environments (made once): env_tags is written from these, in its key's order."""
        if self._tag_sets is None:
            self._tag_sets = dict(self._renumbered_sets(db, "tag", self.tags))
        return self._tag_sets

    def write(self, db: sqlite3.Connection) -> None:
        """env_sets, from the previous snapshot's (attached as `previous`)."""
        db.execute(TABLE)
        db.executemany(INSERT_SETS, self._rows(db))

    def _rows(self, db: sqlite3.Connection):
        yield set_row("all", "", BitMap(range(1, self.total + 1)))
        for kind, rowids in self.kinds.items():
            yield set_row("kind", kind, BitMap(rowids))
        for tag, members in self.tag_sets(db).items():
            yield set_row("tag", tag, members)
        for word, members in self._renumbered_sets(db, "word", self.words):
            yield set_row("word", word, members)

    def _renumbered_sets(self, db: sqlite3.Connection, facet: str, fresh: dict[str, list[int]]):
        """(key, set) of every word or tag some environment has, renumbered, with `fresh` environments added."""
        for key, members in db.execute("SELECT key, members FROM previous.env_sets WHERE facet = ?", (facet,)):
            renumbered = self._renumbered(members)
            added = fresh.pop(key, None)
            if added:
                renumbered.update(added)
            if renumbered:
                yield key, renumbered
        for key, added in fresh.items():  # words and tags no environment had before
            yield key, BitMap(added)

    def _renumbered(self, members: bytes) -> BitMap:
        rowids = BitMap.deserialize(members).to_array()
        if len(rowids) == 1:  # itemgetter of one item gives the item, not a tuple
            renumbered = BitMap((self.renumber[rowids[0]],))
        else:
            renumbered = BitMap(itemgetter(*rowids)(self.renumber))
        renumbered.discard(0)
        return renumbered
