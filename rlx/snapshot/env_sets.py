"""Reading the environment search's sets (rlx/snapshot/search_tables.py): the environments a word, a kind, a tag
or a list of ids selects, and what a search needs from them (a total, facet counts, one ordered page) without
ever visiting every match.
"""

from __future__ import annotations

import heapq
import json
import sqlite3
from collections.abc import Iterable

from pyroaring import BitMap

from rlx.snapshot import memo
from rlx.snapshot.schema import TRENDING_ROWIDS

WALK_COST = 5  # listing one match by rowid (a lookup and a sort) costs about this many steps of an index walk
_WALK_CHUNK = 256
FEW_ENVS = 150  # up to this many environments, their own tag rows cost less to count than every tag set


def everyone(db: sqlite3.Connection) -> BitMap:
    """Every environment of the file (read once per connection: no caller changes a set in place)."""
    return memo.remembered(db, "everyone", lambda: _one(db, "all", ""))


def of_word(db: sqlite3.Connection, word: str) -> BitMap:
    """The environments with a word beginning `word` (a single character: the word itself), the one meaning of a
    search word (rlx/catalog/words.py)."""
    if len(word) == 1:
        return _one(db, "word", word)
    # Every stored word in [word, word + U+10FFFF): exactly the words that begin with `word`.
    rows = db.execute("SELECT members FROM env_sets WHERE facet = 'word' AND key >= ? AND key < ?",
                      (word, word + "\U0010ffff"))
    return BitMap.union(BitMap(), *(BitMap.deserialize(members) for (members,) in rows))


def of_kinds(db: sqlite3.Connection, kinds: Iterable[str]) -> BitMap:
    return BitMap.union(BitMap(), *(_one(db, "kind", kind) for kind in kinds))


def of_tag(db: sqlite3.Connection, tag: str) -> BitMap:
    return _one(db, "tag", tag)


def of_ids(db: sqlite3.Connection, ids: list[str]) -> BitMap:
    rows = db.execute("SELECT rowid FROM envs WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
    return BitMap(rowid for (rowid,) in rows)


def _one(db: sqlite3.Connection, facet: str, key: str) -> BitMap:
    row = db.execute("SELECT members FROM env_sets WHERE facet = ? AND key = ?", (facet, key)).fetchone()
    return BitMap.deserialize(row[0]) if row else BitMap()


def kind_counts(db: sqlite3.Connection, within: BitMap) -> list[tuple[str, int]]:
    """Each kind's number of environments in `within`, most first (kinds with none left out)."""
    counts = []
    for kind, members in db.execute("SELECT key, members FROM env_sets WHERE facet = 'kind'"):
        n = within.intersection_cardinality(BitMap.deserialize(members))
        if n:
            counts.append((kind, n))
    return sorted(counts, key=lambda kv: (-kv[1], kv[0]))


def tag_counts(db: sqlite3.Connection, within: BitMap, limit: int) -> list[tuple[str, int]]:
    """The `limit` tags most common in `within` (most first, then by name), exact.

    A few environments have their own tags counted (env_tags by environment, a handful of rows each). Otherwise
    tags are read largest first and the reading stops once no tag left could enter the list (a tag's count here
    is at most its catalog total); a narrow search fills the list with few tags, so it read every tag's set.
    """
    if len(within) <= FEW_ENVS:
        rows = db.execute("SELECT tag, count(*) AS n FROM env_tags WHERE env_rowid IN (SELECT value FROM json_each(?)) "
                          "GROUP BY tag ORDER BY n DESC, tag LIMIT ?", (json.dumps(list(within)), limit))
        return [(tag, n) for tag, n in rows]
    best: list[tuple[int, str]] = []  # a heap of (count, reversed name) whose root is the weakest entry
    rows = db.execute("SELECT key, n, members FROM env_sets WHERE facet = 'tag' ORDER BY n DESC")
    for tag, total, members in rows:
        if len(best) == limit and total < best[0][0]:
            break
        n = within.intersection_cardinality(BitMap.deserialize(members))
        if not n:
            continue
        entry = (n, _Reversed(tag))
        if len(best) < limit:
            heapq.heappush(best, entry)
        elif entry > best[0]:
            heapq.heapreplace(best, entry)
    return [(entry[1].text, entry[0]) for entry in sorted(best, reverse=True)]


class _Reversed:
    """A name that sorts backwards, so the heap's weakest entry is the lowest count, then the latest name."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __lt__(self, other: "_Reversed") -> bool:
        return self.text > other.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and self.text == other.text


def rowids_in_trending_order(db: sqlite3.Connection) -> bool:
    """Whether this file's rowids follow the trending order (schema.TRENDING_ROWIDS)."""
    return db.execute("SELECT 1 FROM meta WHERE key = ? AND value = '1'", (TRENDING_ROWIDS,)).fetchone() is not None


def ordered_page(db: sqlite3.Connection, matched: BitMap, order: str, offset: int, size: int,
                 pinned: list[int] = (), by_rowid: bool = False) -> list[int]:
    """The rowids of `matched` at [offset, offset + size) in `order` ("column DESC, id"), pinned rowids first.

    `by_rowid`: the order is the rowids' own (see rowids_in_trending_order), so the page is a slice of the set.
    Otherwise a large set is read by walking the order's index and keeping members, which stops after the page
    (the expected walk is the page's end divided by the set's share of the catalog); a small one is listed by
    rowid and sorted, which costs its size. Whichever is cheaper is used.
    """
    pins = [rowid for rowid in pinned if rowid in matched]
    rest = matched - BitMap(pins) if pins else matched
    if offset < len(pins):
        page = pins[offset:offset + size]
        return page + _rest(db, rest, order, 0, size - len(page), by_rowid) if len(page) < size else page
    return _rest(db, rest, order, offset - len(pins), size, by_rowid)


def _rest(db: sqlite3.Connection, matched: BitMap, order: str, offset: int, size: int, by_rowid: bool) -> list[int]:
    if not matched or size <= 0 or offset >= len(matched):
        return []
    if by_rowid:
        return list(matched[offset:offset + size])
    walk = (offset + size) * _catalog_size(db) / len(matched)
    if walk > WALK_COST * len(matched):
        rows = db.execute(f"SELECT rowid FROM envs WHERE rowid IN (SELECT value FROM json_each(?)) "
                          f"ORDER BY {order} LIMIT ? OFFSET ?", (json.dumps(list(matched)), size, offset))
        return [rowid for (rowid,) in rows]
    page: list[int] = []
    cursor = db.execute(f"SELECT rowid FROM envs ORDER BY {order}")
    skip = offset
    while len(page) < size and (chunk := cursor.fetchmany(_WALK_CHUNK)):
        for (rowid,) in chunk:
            if rowid in matched:
                if skip:
                    skip -= 1
                else:
                    page.append(rowid)
                    if len(page) == size:
                        break
    cursor.close()
    return page


def _catalog_size(db: sqlite3.Connection) -> int:
    return db.execute("SELECT n FROM env_sets WHERE facet = 'all'").fetchone()[0]
