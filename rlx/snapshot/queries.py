"""The questions the search API asks the snapshot: a page of environments with facet counts, task search, and
one environment's trending rank. Each takes an open connection (see SnapshotReader.connection).

What a visitor types is data, never SQL or FTS syntax: a search is cut into words of letters and digits
(rlx/catalog/words.py, the one meaning of a search word): for environments each word is looked up among the stored
words (rlx/snapshot/env_sets.py), for tasks it is bound as a parameter and quoted as one FTS string. Sort and facet
names come from allow-lists. Ties are broken by id,
so pages never overlap.
"""

from __future__ import annotations

import json
import sqlite3

from pyroaring import BitMap

from rlx.catalog import words
from rlx.snapshot import env_sets, health_facet
from rlx.snapshot.schema import DRAW_HASH_SQL, SORT_COLUMNS
from rlx.snapshot.task_sample import Estimate

MAX_WORDS = words.MAX_WORDS
MAX_WORD_CHARS = words.MAX_WORD_CHARS
MAX_PAGE = 10_000  # deeper than any listing goes; beyond it SQLite's OFFSET would overflow
MAX_PAGE_SIZE = 100
RANK_LIMIT = 500  # task matches scored for relevance (the first in catalog order); the rest follow unscored
RANK_BROADEST = 20_000  # past this many matches a search lists in catalog order (see search_tasks)
FACET_SIZE = 30
TASK_FACETS_EXACT = 2000  # task matches up to which category and difficulty are counted one by one
TASK_FACET_SAMPLE = 1000  # past that, about this many of the matches are counted and the counts scaled
COUNT_CAP = 20_000  # a search of every task counts its matches up to this many; past it the total is estimated
TASK_DRAW_WITH_COUNT = 20_000  # a word search's count also draws the facet sample for this many matches or more

FILTERS = ("tags",)  # facet filters besides kind, which has its own argument
_ENV_CARD = ("id", "key", "repo_type", "kind", "heading", "brief", "likes", "downloads", "trending", "created",
             "modified", "task_count", "tags", "sdk", "stage")
_TASK_CARD = ("env_id", "ref", "title", "brief", "category", "difficulty", "grading", "runtime", "runs_here", "tags")


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
    page, size = _paging(page, size)
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
    total = db.execute("SELECT n FROM env_sets WHERE facet = 'all'").fetchone()[0]
    facets = {"kind": _facet_totals(db, "kind", limit=-1), "tags": _facet_totals(db, "tags", limit=FACET_SIZE),
              "health": health_facet.counts(db, env_sets.everyone(db))}
    return {"cards": _env_cards(db, rowids), "total": total, "page": page, "size": size, "facets": facets}


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
        card["tags"] = json.loads(card["tags"])
        card["health"] = health.get(rowid)  # None: not checked
    return cards


def search_tasks(db: sqlite3.Connection, q: str = "", env: str | None = None, page: int = 1,
                 size: int = 24, facets: bool = True, exclude_ids=()) -> dict:
    """Tasks whose title or brief has words starting with each word of `q`, best match first.

    With no words, an environment's tasks (or every task) in index order. Category and difficulty are counted
    over all the matches (estimated past TASK_FACETS_EXACT of them: then "facets_about" is true). A search of the
    whole catalog counts its matches up to COUNT_CAP; past that the total is the task sample's estimate
    (rlx/snapshot/task_sample.py) and "total_about" is true.
    """
    page, size = _paging(page, size)
    tokens = task_tokens(q)
    if tokens:
        scope = "SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH ?"
        params: tuple = (_task_match(tokens),)
        if env is not None:
            scope += (" AND rowid IN (SELECT rowid FROM task_facets "
                      "WHERE env_key = (SELECT env_key FROM envs WHERE id = ?))")
            params += (env,)
    else:
        scope, params = "SELECT rowid FROM task_facets", ()
        if env is not None:
            scope, params = f"{scope} WHERE env_key = (SELECT env_key FROM envs WHERE id = ?)", (env,)
    hidden = sorted(i for i in exclude_ids or () if isinstance(i, str))
    if hidden:  # the admin's hidden environments: their tasks are not matches at all
        marks = ", ".join("?" for _ in hidden)
        scope += (" AND" if " WHERE " in scope else " WHERE") + (
            " rowid NOT IN (SELECT rowid FROM task_facets WHERE env_key IN "
            f"(SELECT env_key FROM envs WHERE id IN ({marks})))")
        params += tuple(hidden)
    sample = Estimate(db, params[0], tuple(hidden)) if tokens and env is None else None
    # every: every match, best first, when all are scored (the facets are then counted over this list). When the
    # sample says the matches are few, one pass reads them with their scores, and their number is the total.
    every = _every_scored(db, scope, params) if sample is not None and sample.total <= RANK_LIMIT else None
    about = False
    if every is not None:
        total, drawn = len(every), None
    else:
        # A search of every task draws its facet sample from the task sample instead (past COUNT_CAP, where the
        # draw would be read with the count).
        total, drawn = _count(db, scope, params, with_draw=bool(tokens) and sample is None,
                              cap=COUNT_CAP if sample else None)
        about = sample is not None and total > COUNT_CAP
        if about:
            total = sample.rounded_total(at_least=total)
    offset = (page - 1) * size
    # Scoring weighs each word by how many tasks have it, one more pass over every match: past RANK_BROADEST
    # matches that pass alone costs more than the rest of the search and the words say too little to rank by,
    # so such a search lists in catalog order, as does one whose total is an estimate (it has more than COUNT_CAP).
    ranked = bool(tokens) and not about and total <= RANK_BROADEST
    if every is None and ranked and total <= RANK_LIMIT:
        every = [r[0] for r in db.execute(f"{scope} ORDER BY rank, rowid", params)]
    if every is not None:
        rowids = every[offset:offset + size]
    elif ranked:
        rowids = _ranked_page(db, scope, params, offset, size)
    else:
        rowids = [r[0] for r in db.execute(f"{scope} ORDER BY rowid LIMIT ? OFFSET ?", (*params, size, offset))]
    if not facets:
        counted, facets_about = {}, False
    elif about:  # the facets from the same sample as the total
        counted, facets_about = _scaled_tally(sample.facet_rows(), total), True
    else:
        counted, facets_about = _task_facets(db, scope, params, total, drawn if every is None else every)
    return {"tasks": _task_cards(db, rowids), "total": total, "total_about": about, "page": page, "size": size,
            "ranked": ranked, "ranked_matches": min(total, RANK_LIMIT) if ranked else 0, "facets": counted,
            "facets_about": facets_about}


def _every_scored(db: sqlite3.Connection, scope: str, params: tuple) -> list[int] | None:
    """Every match best first, from one pass that reads each match with its score; None past RANK_LIMIT matches
    (the caller counts them instead)."""
    scored = scope.replace("SELECT rowid FROM", "SELECT rowid, rank FROM", 1)
    rows = db.execute(f"{scored} ORDER BY rowid LIMIT ?", (*params, RANK_LIMIT + 1)).fetchall()
    if len(rows) > RANK_LIMIT:
        return None
    rows.sort(key=lambda row: (row[1], row[0]))  # as ORDER BY rank, rowid
    return [row[0] for row in rows]


def _ranked_page(db: sqlite3.Connection, scope: str, params: tuple, offset: int, size: int) -> list[int]:
    """One page of matches, best first. Scoring re-reads each match's text, so only the first RANK_LIMIT matches
    in catalog order are scored: they come first, best first, and the matches past them follow in catalog order."""
    page: list[int] = []
    if offset < RANK_LIMIT:  # the scored part: one pass over its matches, each scored as it is read
        scored = scope.replace("SELECT rowid FROM", "SELECT rowid, rank FROM", 1)
        page = [r[0] for r in db.execute(f"SELECT rowid FROM ({scored} ORDER BY rowid LIMIT ?) "
                                         "ORDER BY rank, rowid LIMIT ? OFFSET ?", (*params, RANK_LIMIT, size, offset))]
    if len(page) < size:
        rest = db.execute(f"{scope} ORDER BY rowid LIMIT ? OFFSET ?",
                          (*params, size - len(page), RANK_LIMIT + max(0, offset - RANK_LIMIT)))
        page += [r[0] for r in rest]
    return page


def task_tokens(q: str) -> list[str]:
    """The words of a task search: the same words as every search (rlx/catalog/words.py)."""
    return search_words(q)


def _task_match(tokens: list[str]) -> str:
    """Each token a quoted prefix; a single character is a whole word ("c", "r"), since as a prefix it would
    match a large share of the vocabulary and say nothing."""
    return " ".join(f'"{token}"' if len(token) == 1 else f'"{token}"*' for token in tokens)


# A task is in the facet sample when a multiplicative hash of its rowid falls under a share of 2**32: spread like
# a random draw (tasks of one kind often sit in runs of rowids, which every-k-th would alias with), and the same
# draw on every request. _count and _task_facets compute it alike, in SQL (schema.DRAW_HASH_SQL) and in Python.


def _drawn(rowids: list[int], share: int) -> list[int]:
    """The rowids in the draw under `share`. One comprehension with the share computed once: at 10x the catalog a
    broad prefix brings about 5,700 rowids here, and a call per rowid (computing the share again each time) cost
    2 to 3 ms of CPU per search, a fifth of the whole search."""
    return [rowid for rowid in rowids if (rowid * 2654435761) & 4294967295 < share]


def _share(total: int) -> int:
    return min(2**32, 2**32 * TASK_FACET_SAMPLE // total)


def _count(db: sqlite3.Connection, scope: str, params: tuple, with_draw: bool, cap: int | None
           ) -> tuple[int, list[int] | None]:
    """The number of matches, or cap + 1 when there are more than `cap`; with `with_draw`, also the matches in the
    facet sample's draw for TASK_DRAW_WITH_COUNT matches, read in the same pass (None when there are fewer): reading
    a broad word's matches is most of a search's cost, and a second pass for the sample would double it."""
    if cap is not None:
        scope, params = f"{scope} LIMIT ?", (*params, cap + 1)
    if not with_draw:  # a plain count(*) of a table is SQLite's own fast count: keep it so
        return db.execute(f"SELECT count(*) FROM ({scope})", params).fetchone()[0], None
    total, drawn = db.execute(f"SELECT count(*), json_group_array(rowid) FILTER (WHERE {DRAW_HASH_SQL} < ?) "
                              f"FROM ({scope})", (_share(TASK_DRAW_WITH_COUNT), *params)).fetchone()
    return total, json.loads(drawn) if total >= TASK_DRAW_WITH_COUNT else None


def _task_facets(db: sqlite3.Connection, scope: str, params: tuple, total: int, known: list[int] | None
                 ) -> tuple[dict, bool]:
    """Category and difficulty over the matches: counted exactly up to TASK_FACETS_EXACT matches; past that,
    estimated from a fixed pseudo-random draw of about TASK_FACET_SAMPLE of them and marked "about" (the second
    value), so a broad search costs about the same at any catalog size.

    `known`: matches already read, so the search's words are not looked up once more: every match (a search whose
    matches were all scored), or the draw the count read (see _count), of which this total's draw is the part
    under a smaller share."""
    sampled = total > TASK_FACETS_EXACT
    if known is not None:
        chosen = _drawn(known, _share(total)) if sampled else known
        scope, params = "SELECT value FROM json_each(?)", (json.dumps(chosen),)
    elif sampled:
        scope = f"{scope} {'AND' if ' WHERE ' in scope else 'WHERE'} {DRAW_HASH_SQL} < ?"
        params = (*params, _share(total))
    # One pass over the narrow facet table yields both facets.
    rows = db.execute(f"SELECT category, difficulty, count(*) FROM task_facets WHERE rowid IN ({scope}) "
                      "GROUP BY category, difficulty", params)
    if not sampled:
        category, difficulty, _ = _tally(rows)
        return {"category": _top(category), "difficulty": _top(difficulty)}, False
    return _scaled_tally(rows, total), True


def _tally(rows) -> tuple[dict[str, int], dict[str, int], int]:
    """Category and difficulty counts from (category, difficulty, n) rows, and the number of tasks they cover."""
    category: dict[str, int] = {}
    difficulty: dict[str, int] = {}
    seen = 0
    for cat, diff, n in rows:
        seen += n
        if cat is not None:
            category[cat] = category.get(cat, 0) + n
        if diff is not None:
            difficulty[diff] = difficulty.get(diff, 0) + n
    return category, difficulty, seen


def _scaled_tally(rows, total: int) -> dict:
    """Facets counted over a sample of the matches, as estimates over all `total` of them."""
    category, difficulty, seen = _tally(rows)
    if not seen:
        return {"category": [], "difficulty": []}
    return {"category": _top(_scaled(category, total, seen)), "difficulty": _top(_scaled(difficulty, total, seen))}


def _scaled(counts: dict[str, int], total: int, seen: int) -> dict[str, int]:
    """Sample counts as estimates over all `total` matches, to two significant figures (they are no closer)."""
    out = {}
    for value, n in counts.items():
        estimate = n * total / seen
        out[value] = max(1, int(float(f"{estimate:.2g}")))
    return out


def _task_cards(db: sqlite3.Connection, rowids: list[int]) -> list[dict]:
    if not rowids:
        return []
    columns = ", ".join("e.id" if c == "env_id" else f"t.{c}" for c in _TASK_CARD)
    rows = db.execute(f"SELECT t.rowid, {columns}, e.heading, e.kind FROM tasks t JOIN envs e ON e.env_key = t.env_key "
                      f"WHERE t.rowid IN ({', '.join('?' * len(rowids))})", rowids).fetchall()
    by_rowid = {}
    for row in rows:
        card = dict(zip(_TASK_CARD, row[1:]))
        card["tags"] = json.loads(card["tags"])
        card["runs_here"] = None if card["runs_here"] is None else bool(card["runs_here"])
        card["env_heading"], card["env_kind"] = row[-2], row[-1]
        by_rowid[row[0]] = card
    return [by_rowid[r] for r in rowids]


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


def _paging(page, size) -> tuple[int, int]:
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


def _top(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:FACET_SIZE]
