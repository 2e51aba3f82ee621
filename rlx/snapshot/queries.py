"""The questions the search API asks the snapshot about environments: a page of them with facet counts, and one
environment's trending rank (task search is rlx/snapshot/task_search.py). Each takes an open connection (see
SnapshotReader.connection).

What a visitor types is data, never SQL or FTS syntax: a search is cut into words of letters and digits
(rlx/catalog/words.py, the one meaning of a search word), and each word is looked up among the stored words
(rlx/snapshot/env_sets.py). Sort and facet names come from allow-lists. Ties are broken by id, so pages never
overlap.
"""

from __future__ import annotations

import sqlite3

import orjson
from pyroaring import BitMap

from rlx.catalog import words
from rlx.snapshot import env_sets, health_facet, memo
from rlx.snapshot.schema import SORT_COLUMNS

MAX_WORDS = words.MAX_WORDS
MAX_WORD_CHARS = words.MAX_WORD_CHARS
MAX_PAGE = 10_000  # deeper than any listing goes; beyond it SQLite's OFFSET would overflow
MAX_PAGE_SIZE = 100
FACET_SIZE = 30

FILTERS = ("tags",)  # facet filters besides kind, which has its own argument
_ENV_CARD = ("id", "key", "repo_type", "kind", "heading", "brief", "likes", "downloads", "trending", "created",
             "modified", "task_count", "tags", "sdk", "stage")


class QueryError(ValueError):
    """The request cannot be answered as asked; the message is one sentence for the visitor."""


def search_envs(db: sqlite3.Connection, q: str = "", kind: str | list[str] | None = None,
                filters: dict[str, str | list[str]] | None = None, sort: str = "trending", page: int = 1,
                size: int = 24, exclude_ids=(), only_ids=None, pinned=(), health: str | None = None) -> dict:
    """One page of environment cards, the total, and each facet counted over what the other filters leave.

    The admin's settings arrive per query: `exclude_ids` (hidden environments), `only_ids` (a collection) and
    `pinned` (first in trending order, in their order). `health` keeps the environments with that health verdict
    (rlx/snapshot/health_facet.py).
    """
    column = SORT_COLUMNS.get(sort)
    if column is None:
        raise QueryError(f"sort must be one of {', '.join(SORT_COLUMNS)}.")
    page, size = paging(page, size)
    order = f"{column} DESC, id"
    pins = [p for p in pinned if isinstance(p, str)][:50] if sort == "trending" else []
    found, kinds, tags = search_words(q), _values(kind), _tag_values(filters)
    hidden = [i for i in exclude_ids or () if isinstance(i, str)]
    by_rowid = sort == "trending" and env_sets.rowids_in_trending_order(db)
    if health is not None and health not in health_facet.VERDICTS:
        raise QueryError(f"health must be one of {', '.join(health_facet.VERDICTS)}.")
    if not (found or kinds or tags or hidden or health or only_ids is not None):
        return _whole_catalog(db, order, pins, page, size, by_rowid)
    # Every condition is a set of environments (rlx/snapshot/env_sets.py); the page, the total and each facet are
    # read from their intersections, so no count walks the matches.
    parts = {"q": _words_set(db, found), "kind": env_sets.of_kinds(db, kinds) if kinds else None,
             "tags": _all_of(env_sets.of_tag(db, tag) for tag in tags) if tags else None,
             "ids": _ids_set(db, hidden, only_ids),
             "health": health_facet.of_verdict(db, health, env_sets.everyone(db)) if health else None}
    matched = _all_of(part for part in parts.values() if part is not None)  # one part at least: see above
    pinned_rowids = list(_ids_in_order(db, pins)) if pins else []
    rowids = env_sets.ordered_page(db, matched, order, (page - 1) * size, size, pinned_rowids, by_rowid)
    facets = {"kind": env_sets.kind_counts(db, _leaving_out(db, parts, "kind")),
              "tags": env_sets.tag_counts(db, _leaving_out(db, parts, "tags"), FACET_SIZE),
              "health": health_facet.counts(db, _leaving_out(db, parts, "health"))}
    return {"cards": _env_cards(db, rowids), "total": len(matched), "page": page, "size": size, "facets": facets}


def _whole_catalog(db: sqlite3.Connection, order: str, pins: list[str], page: int, size: int, by_rowid: bool
                   ) -> dict:
    """No filter at all: the page straight from the order's index (in trending order, when the rowids follow it,
    a range of rowids after the pinned ones), the facets from their catalog totals."""
    if by_rowid:
        rowids = env_sets.ordered_page(db, env_sets.everyone(db), order, (page - 1) * size, size,
                                       list(_ids_in_order(db, pins)), by_rowid=True)
    else:
        order_params: tuple = ()
        if pins:
            order = (f"CASE id {' '.join('WHEN ? THEN ' + str(i) for i in range(len(pins)))} ELSE {len(pins)} END, "
                     f"{order}")
            order_params = tuple(pins)
        rowids = [r[0] for r in db.execute(f"SELECT rowid FROM envs ORDER BY {order} LIMIT ? OFFSET ?",
                                           (*order_params, size, (page - 1) * size))]
    total, facets = memo.remembered(db, "whole_catalog_facets", lambda: _whole_catalog_facets(db))
    return {"cards": _env_cards(db, rowids), "total": total, "page": page, "size": size,
            "facets": {name: list(counts) for name, counts in facets.items()}}


def _whole_catalog_facets(db: sqlite3.Connection) -> tuple[int, dict]:
    """The catalog's size and its facets unfiltered: the same for every such page of one snapshot file."""
    total = db.execute("SELECT n FROM env_sets WHERE facet = 'all'").fetchone()[0]
    return total, {"kind": _facet_totals(db, "kind", limit=-1), "tags": _facet_totals(db, "tags", limit=FACET_SIZE),
                   "health": health_facet.counts(db, env_sets.everyone(db))}


def _words_set(db: sqlite3.Connection, found: list[str]):
    if not found:
        return None
    if not all(_encodable(word) for word in found):
        return BitMap()  # text that cannot be UTF-8 occurs in no stored text
    return _all_of(env_sets.of_word(db, word) for word in found)


def _ids_set(db: sqlite3.Connection, hidden: list[str], only_ids):
    if only_ids is None and not hidden:
        return None
    chosen = env_sets.of_ids(db, [i for i in only_ids if isinstance(i, str)]) if only_ids is not None else \
        env_sets.everyone(db)
    return chosen - env_sets.of_ids(db, hidden) if hidden else chosen


def _ids_in_order(db: sqlite3.Connection, ids: list[str]):
    for env_id in ids:
        row = db.execute("SELECT rowid FROM envs WHERE id = ?", (env_id,)).fetchone()
        if row:
            yield row[0]


def _leaving_out(db: sqlite3.Connection, parts: dict, name: str) -> BitMap:
    """What the filters other than `name` leave (a facet is counted over it)."""
    others = [part for key, part in parts.items() if key != name and part is not None]
    return _all_of(others) if others else env_sets.everyone(db)


def _all_of(sets) -> BitMap:
    sets = sorted(sets, key=len)  # smallest first: each intersection is then as cheap as it can be
    return BitMap.intersection(*sets) if len(sets) > 1 else sets[0]  # never changed in place: no copy needed


def _tag_values(filters: dict | None) -> list[str]:
    unknown = set(filters or {}) - set(FILTERS)
    if unknown:
        raise QueryError(f"{sorted(unknown)[0]!r} is not a filter; the filters are {', '.join(FILTERS)}.")
    # Each tag narrows the set: an environment must carry every tag asked for.
    return _values((filters or {}).get("tags"))


def search_words(q: str) -> list[str]:
    """The words of a search (rlx/catalog/words.py says what a word is and what it matches)."""
    try:
        return words.search_words(q)
    except words.WordsError as exc:
        raise QueryError(str(exc)) from None


def _facet_totals(db: sqlite3.Connection, facet: str, limit: int) -> list[tuple[str, int]]:
    rows = db.execute("SELECT value, n FROM facet_totals WHERE facet = ? ORDER BY n DESC, value LIMIT ?",
                      (facet, limit))
    return [(value, n) for value, n in rows]


def _env_cards(db: sqlite3.Connection, rowids: list[int]) -> list[dict]:
    """The page's rows, fetched by rowid after the ordering picked them (a deep page reads only its own rows)."""
    if not rowids:
        return []
    rows = db.execute(f"SELECT rowid, {', '.join(_ENV_CARD)} FROM envs WHERE rowid IN "
                      f"({', '.join('?' * len(rowids))})", rowids).fetchall()
    by_rowid = {row[0]: dict(zip(_ENV_CARD, row[1:])) for row in rows}
    health = health_facet.of_rowids(db, rowids)
    cards = [by_rowid[r] for r in rowids]
    for rowid, card in zip(rowids, cards):
        card["tags"] = orjson.loads(card["tags"])  # a fifth of json.loads's time, for 24 lists per page
        card["health"] = health.get(rowid)  # None: not checked
    return cards


def trending_rank(db: sqlite3.Connection, key: str, exclude_ids=()) -> dict | None:
    """Where one environment stands in trending among its kind: {"n": 599, "of": 6818}; None when absent.

    `key` is an environment id ("org/name", "space:org/name"), or a bare "org/name" that only a Space has. The
    `exclude_ids` (the admin's hidden environments) are absent: None for one of them, and none is counted.
    """
    hidden = {i for i in exclude_ids or () if isinstance(i, str)}
    row = None
    for env_id in (key, f"space:{key}"):
        row = db.execute("SELECT kind, trending, id FROM envs WHERE id = ?", (env_id,)).fetchone()
        if row is not None:
            break
    if row is None or row[2] in hidden:
        return None
    kind, trending, env_id = row
    # Two range counts over the (kind, trending, id) index; one OR-ed condition would scan the whole kind.
    above = db.execute("SELECT count(*) FROM envs WHERE kind = ? AND trending > ?", (kind, trending)).fetchone()[0]
    level = db.execute("SELECT count(*) FROM envs WHERE kind = ? AND trending = ? AND id < ?",
                       (kind, trending, env_id)).fetchone()[0]
    of = db.execute("SELECT n FROM facet_totals WHERE facet = 'kind' AND value = ?", (kind,)).fetchone()[0]
    if hidden:  # a few ids: each looked up by its key
        for other_kind, other_trending, other_id in _envs_by_id(db, sorted(hidden)):
            if other_kind == kind:
                of -= 1
                above -= other_trending > trending
                level -= other_trending == trending and other_id < env_id
    return {"n": above + level + 1, "of": of, "kind": kind}


def listed_ids(db: sqlite3.Connection, ids: list[str]) -> set[str]:
    """Which of these environment ids the public catalog lists (a dataset made private or deleted since leaves it
    at the next build)."""
    found: set[str] = set()
    for start in range(0, len(ids), 500):  # SQLite's bound on parameters
        part = ids[start:start + 500]
        marks = ", ".join("?" for _ in part)
        found.update(r[0] for r in db.execute(f"SELECT id FROM envs WHERE id IN ({marks})", part))
    return found


def _envs_by_id(db: sqlite3.Connection, ids: list[str]):
    marks = ", ".join("?" for _ in ids)
    return db.execute(f"SELECT kind, trending, id FROM envs WHERE id IN ({marks})", ids).fetchall()


def paging(page, size) -> tuple[int, int]:
    """Page and size as whole numbers within bounds (QueryError, with a sentence, otherwise)."""
    try:
        page, size = int(page), int(size)
    except (TypeError, ValueError):
        raise QueryError("page and size must be whole numbers.") from None
    if not 1 <= page <= MAX_PAGE or not 1 <= size <= MAX_PAGE_SIZE:
        raise QueryError(f"page must be between 1 and {MAX_PAGE:,} and size between 1 and {MAX_PAGE_SIZE}.")
    return page, size


def _values(value) -> list[str]:
    if value is None or value == "":
        return []
    values = [value] if isinstance(value, str) else list(value)
    return [str(v) for v in values if str(v)]


def _encodable(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

