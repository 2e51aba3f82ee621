"""The questions the search API asks the snapshot: a page of environments with facet counts, task search, and
one environment's trending rank. Each takes an open connection (see SnapshotReader.connection).

What a visitor types is data, never SQL or FTS syntax: a search is cut into words of letters and digits
(rlx/catalog/words.py, the one meaning of a search word), each bound as a parameter and quoted as one FTS string,
and checked again against the stored words. Sort and facet names come from allow-lists. Ties are broken by id,
so pages never overlap.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from rlx.catalog import words
from rlx.snapshot.schema import SORT_COLUMNS

MAX_WORDS = words.MAX_WORDS
MAX_WORD_CHARS = words.MAX_WORD_CHARS
MAX_PAGE = 10_000  # deeper than any listing goes; beyond it SQLite's OFFSET would overflow
MAX_PAGE_SIZE = 100
RANK_LIMIT = 5000  # task matches beyond which results are listed in catalog order instead of by relevance
FACET_SIZE = 30
_TRIGRAM = 3  # the trigram index cannot look up anything shorter: such words are matched as substrings only

FILTERS = ("tags",)  # facet filters besides kind, which has its own argument
_ENV_CARD = ("id", "key", "repo_type", "kind", "heading", "brief", "likes", "downloads", "trending", "created",
             "modified", "task_count", "tags", "sdk", "stage")
_TASK_CARD = ("env_id", "ref", "title", "brief", "category", "difficulty", "grading", "runtime", "runs_here", "tags")


class QueryError(ValueError):
    """The request cannot be answered as asked; the message is one sentence for the visitor."""


@dataclass(frozen=True)
class _Condition:
    sql: str
    params: tuple = ()


def search_envs(db: sqlite3.Connection, q: str = "", kind: str | list[str] | None = None,
                filters: dict[str, str | list[str]] | None = None, sort: str = "trending", page: int = 1,
                size: int = 24, exclude_ids=(), only_ids=None, pinned=()) -> dict:
    """One page of environment cards, the total, and each facet counted over what the other filters leave.

    The admin's settings arrive per query: `exclude_ids` (hidden environments), `only_ids` (a collection) and
    `pinned` (first in trending order, in their order).
    """
    column = SORT_COLUMNS.get(sort)
    if column is None:
        raise QueryError(f"sort must be one of {', '.join(SORT_COLUMNS)}.")
    page, size = _paging(page, size)
    conditions = {"q": _matched_once(db, _word_conditions(q)), "kind": _kind_conditions(kind),
                  "tags": _tag_conditions(filters), "ids": _id_conditions(exclude_ids, only_ids)}
    where, params = _where(conditions)
    order, order_params = f"{column} DESC, id", ()
    pins = [p for p in pinned if isinstance(p, str)][:50] if sort == "trending" else []
    if pins:
        order = f"CASE id {' '.join('WHEN ? THEN ' + str(i) for i in range(len(pins)))} ELSE {len(pins)} END, {order}"
        order_params = tuple(pins)
    rowids = [r[0] for r in db.execute(
        f"SELECT rowid FROM envs {where} ORDER BY {order} LIMIT ? OFFSET ?",
        (*params, *order_params, size, (page - 1) * size))]
    total = db.execute(f"SELECT count(*) FROM envs {where}", params).fetchone()[0]
    facets = {"kind": _kind_facet(db, _where(conditions, leave_out="kind")),
              "tags": _tag_facet(db, _where(conditions, leave_out="tags"))}
    return {"cards": _env_cards(db, rowids), "total": total, "page": page, "size": size, "facets": facets}


def search_words(q: str) -> list[str]:
    """The words of a search (rlx/catalog/words.py says what a word is and what it matches)."""
    try:
        return words.search_words(q)
    except words.WordsError as exc:
        raise QueryError(str(exc)) from None


def _word_conditions(q: str) -> list[_Condition]:
    found = search_words(q)
    if not all(_encodable(word) for word in found):
        return [_Condition("0")]  # text that cannot be UTF-8 occurs in no stored text
    conditions = [_Condition("instr(search_blob, ?) > 0", (words.needle(word),)) for word in found]
    # The trigram index narrows the rows first; the word check above keeps the answer exact. Words under three
    # characters go by the word check alone.
    phrases = [_fts_string(word) for word in found if len(word) >= _TRIGRAM]
    if phrases:
        conditions.insert(0, _Condition("rowid IN (SELECT rowid FROM envs_fts WHERE envs_fts MATCH ?)",
                                        (" ".join(phrases),)))
    return conditions


def _matched_once(db: sqlite3.Connection, words: list[_Condition]) -> list[_Condition]:
    """The rows the words match, gathered once: the page, the total and every facet then read that set instead
    of repeating the text match (and its substring check over wide rows) four times."""
    if not words or words == [_Condition("0")]:
        return words
    db.execute("CREATE TEMP TABLE IF NOT EXISTS word_matches (rowid INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM temp.word_matches")
    sql, params = _where({"q": words})
    db.execute(f"INSERT INTO temp.word_matches SELECT rowid FROM envs {sql}", params)
    return [_Condition("rowid IN temp.word_matches")]


def _id_conditions(exclude_ids, only_ids) -> list[_Condition]:
    conditions = []
    hidden = [i for i in exclude_ids or () if isinstance(i, str)]
    if hidden:
        conditions.append(_Condition(f"id NOT IN ({', '.join('?' * len(hidden))})", tuple(hidden)))
    if only_ids is not None:
        chosen = [i for i in only_ids if isinstance(i, str)]
        conditions.append(_Condition(f"id IN ({', '.join('?' * len(chosen))})", tuple(chosen)) if chosen
                          else _Condition("0"))
    return conditions


def _kind_conditions(kind: str | list[str] | None) -> list[_Condition]:
    kinds = _values(kind)
    if not kinds:
        return []
    return [_Condition(f"kind IN ({', '.join('?' * len(kinds))})", tuple(kinds))]


def _tag_conditions(filters: dict | None) -> list[_Condition]:
    unknown = set(filters or {}) - set(FILTERS)
    if unknown:
        raise QueryError(f"{sorted(unknown)[0]!r} is not a filter; the filters are {', '.join(FILTERS)}.")
    # Each tag narrows the set: an environment must carry every tag asked for.
    return [_Condition("rowid IN (SELECT env_rowid FROM env_tags WHERE tag = ?)", (tag,))
            for tag in _values((filters or {}).get("tags"))]


def _where(conditions: dict[str, list[_Condition]], leave_out: str | None = None) -> tuple[str, tuple]:
    chosen = [c for name, group in conditions.items() if name != leave_out for c in group]
    if not chosen:
        return "", ()
    return "WHERE " + " AND ".join(c.sql for c in chosen), tuple(p for c in chosen for p in c.params)


def _kind_facet(db: sqlite3.Connection, where: tuple[str, tuple]) -> list[tuple[str, int]]:
    sql, params = where
    if not sql:
        return _facet_totals(db, "kind", limit=-1)
    rows = db.execute(f"SELECT kind, count(*) FROM envs {sql} GROUP BY kind ORDER BY 2 DESC, 1", params)
    return [(kind, n) for kind, n in rows]


def _tag_facet(db: sqlite3.Connection, where: tuple[str, tuple]) -> list[tuple[str, int]]:
    sql, params = where
    if not sql:
        return _facet_totals(db, "tags", limit=FACET_SIZE)
    rows = db.execute(f"SELECT tag, count(*) FROM env_tags WHERE env_rowid IN (SELECT rowid FROM envs {sql}) "
                      "GROUP BY tag ORDER BY 2 DESC, 1 LIMIT ?", (*params, FACET_SIZE))
    return [(tag, n) for tag, n in rows]


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
    cards = [by_rowid[r] for r in rowids]
    for card in cards:
        card["tags"] = json.loads(card["tags"])
    return cards


def search_tasks(db: sqlite3.Connection, q: str = "", env: str | None = None, page: int = 1,
                 size: int = 24, facets: bool = True) -> dict:
    """Tasks whose title or brief has words starting with each word of `q`, best match first.

    With no words, an environment's tasks (or every task) in index order. Category and difficulty are counted
    over all the matches.
    """
    page, size = _paging(page, size)
    tokens = task_tokens(q)
    if tokens:
        scope = "SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH ?"
        params: tuple = (_task_match(tokens),)
        if env is not None:
            scope += " AND rowid IN (SELECT rowid FROM task_facets WHERE env_id = ?)"
            params += (env,)
    else:
        scope, params = "SELECT rowid FROM task_facets", ()
        if env is not None:
            scope, params = f"{scope} WHERE env_id = ?", (env,)
    total = db.execute(f"SELECT count(*) FROM ({scope})", params).fetchone()[0]
    # Scoring costs time for every match; past RANK_LIMIT matches the words say too little to rank by, so
    # such broad searches list in catalog order instead.
    order = "rank, rowid" if tokens and total <= RANK_LIMIT else "rowid"
    rowids = [r[0] for r in db.execute(f"{scope} ORDER BY {order} LIMIT ? OFFSET ?",
                                       (*params, size, (page - 1) * size))]
    return {"tasks": _task_cards(db, rowids), "total": total, "page": page, "size": size,
            "ranked": order.startswith("rank"), "facets": _task_facets(db, scope, params) if facets else {}}


def task_tokens(q: str) -> list[str]:
    """The words of a task search: the same words as every search (rlx/catalog/words.py)."""
    return search_words(q)


def _task_match(tokens: list[str]) -> str:
    """Each token a quoted prefix; a single character is a whole word ("c", "r"), since as a prefix it would
    match a large share of the vocabulary and say nothing."""
    return " ".join(f'"{token}"' if len(token) == 1 else f'"{token}"*' for token in tokens)


def _task_facets(db: sqlite3.Connection, scope: str, params: tuple) -> dict[str, list[tuple[str, int]]]:
    # One pass over the narrow facet table yields both facets.
    category: dict[str, int] = {}
    difficulty: dict[str, int] = {}
    rows = db.execute(f"SELECT category, difficulty, count(*) FROM task_facets WHERE rowid IN ({scope}) "
                      "GROUP BY category, difficulty", params)
    for cat, diff, n in rows:
        if cat is not None:
            category[cat] = category.get(cat, 0) + n
        if diff is not None:
            difficulty[diff] = difficulty.get(diff, 0) + n
    return {"category": _top(category), "difficulty": _top(difficulty)}


def _task_cards(db: sqlite3.Connection, rowids: list[int]) -> list[dict]:
    if not rowids:
        return []
    columns = ", ".join(f"t.{c}" for c in _TASK_CARD)
    rows = db.execute(f"SELECT t.rowid, {columns}, e.heading, e.kind FROM tasks t LEFT JOIN envs e ON e.id = t.env_id "
                      f"WHERE t.rowid IN ({', '.join('?' * len(rowids))})", rowids).fetchall()
    by_rowid = {}
    for row in rows:
        card = dict(zip(_TASK_CARD, row[1:]))
        card["tags"] = json.loads(card["tags"])
        card["runs_here"] = None if card["runs_here"] is None else bool(card["runs_here"])
        card["env_heading"], card["env_kind"] = row[-2], row[-1]
        by_rowid[row[0]] = card
    return [by_rowid[r] for r in rowids]


def trending_rank(db: sqlite3.Connection, key: str) -> dict | None:
    """Where one environment stands in trending among its kind: {"n": 599, "of": 6818}; None when absent.

    `key` is an environment id ("org/name", "space:org/name"), or a bare "org/name" that only a Space has.
    """
    row = None
    for env_id in (key, f"space:{key}"):
        row = db.execute("SELECT kind, trending, id FROM envs WHERE id = ?", (env_id,)).fetchone()
        if row is not None:
            break
    if row is None:
        return None
    kind, trending, env_id = row
    # Two range counts over the (kind, trending, id) index; one OR-ed condition would scan the whole kind.
    above = db.execute("SELECT count(*) FROM envs WHERE kind = ? AND trending > ?", (kind, trending)).fetchone()[0]
    level = db.execute("SELECT count(*) FROM envs WHERE kind = ? AND trending = ? AND id < ?",
                       (kind, trending, env_id)).fetchone()[0]
    of = db.execute("SELECT n FROM facet_totals WHERE facet = 'kind' AND value = ?", (kind,)).fetchone()[0]
    return {"n": above + level + 1, "of": of, "kind": kind}


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


def _fts_string(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _encodable(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _top(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:FACET_SIZE]
