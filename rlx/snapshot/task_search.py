"""Task search: the tasks whose title, brief or prompt has words beginning with each word of a search, best match
first, with their category and difficulty counted over the matches. Takes an open connection (see
SnapshotReader.connection).

The search's words (rlx/catalog/words.py) are bound as one FTS5 expression, each word quoted: never FTS syntax.
Two expressions find the same tasks. In the plain one each word is a quoted prefix; ranking reads it, since FTS5
scores a prefix as one phrase. In the spelled-out one a prefix of four letters or more is written as the whole words
it begins (rlx/snapshot/task_terms.py), which FTS5 reads lazily where it merges a long prefix's words up front;
counts, facets and pages in catalog order read it. So totals, facets and pages are the same either way: only the
time differs (at 10x, counting "agent" took 75 ms as a prefix).

A search with no words lists an environment's tasks, or every task, in catalog order. Over the whole catalog it
reads no match at all: the number of tasks is stored, and the facets come from the task sample.
"""

from __future__ import annotations

import json
import sqlite3

from rlx.snapshot import memo, task_sample, task_terms
from rlx.snapshot.queries import FACET_SIZE, paging, search_words
from rlx.snapshot.schema import DRAW_HASH_SQL
from rlx.snapshot.task_sample import Estimate

RANK_LIMIT = 500  # task matches scored for relevance (the first in catalog order); the rest follow unscored
RANK_BROADEST = 20_000  # past this many matches a search lists in catalog order (see search_tasks)
TASK_FACETS_EXACT = 2000  # task matches up to which category and difficulty are counted one by one
TASK_FACET_SAMPLE = 1000  # past that, about this many of the matches are counted and the counts scaled
COUNT_CAP = 20_000  # a search of every task counts its matches up to this many; past it the total is estimated
TASK_DRAW_WITH_COUNT = 20_000  # a word search's count also draws the facet sample for this many matches or more

_TASK_CARD = ("env_id", "ref", "title", "brief", "category", "difficulty", "grading", "runtime", "runs_here", "tags")


def search_tasks(db: sqlite3.Connection, q: str = "", env: str | None = None, page: int = 1,
                 size: int = 24, facets: bool = True, exclude_ids=()) -> dict:
    """Tasks whose title or brief has words starting with each word of `q`, best match first.

    With no words, an environment's tasks (or every task) in index order. Category and difficulty are counted
    over all the matches (estimated past TASK_FACETS_EXACT of them: then "facets_about" is true). A search of the
    whole catalog counts its matches up to COUNT_CAP; past that the total is the task sample's estimate
    (rlx/snapshot/task_sample.py) and "total_about" is true.
    """
    page, size = paging(page, size)
    tokens = task_tokens(q)
    hidden = tuple(sorted(i for i in exclude_ids or () if isinstance(i, str)))
    offset = (page - 1) * size
    if not tokens:
        return _listing(db, env, page, size, facets, hidden)
    plain = _task_match(tokens)
    spelled, same_scores = _spelled_out(db, tokens)
    # What ranking reads: the prefixes themselves, or the words they were spelled out as when each prefix became
    # one word (the same phrases, so the same scores; FTS5 merges a long prefix's words twice to score it).
    ranked_by = spelled if same_scores else plain
    scored = _scope(ranked_by, env, hidden)
    scope, params = scored if ranked_by == spelled else _scope(spelled, env, hidden)
    sample = Estimate(db, spelled, hidden) if env is None else None
    # every: every match, best first, when all are scored (the facets are then counted over this list). When the
    # sample says the matches are few, one pass reads them with their scores, and their number is the total.
    every = _every_scored(db, *scored) if sample is not None and sample.total <= RANK_LIMIT else None
    about = False
    if every is not None:
        total, drawn = len(every), None
    else:
        total, drawn = _count(db, scope, params, draw_for=_draw_for(sample), cap=COUNT_CAP if sample else None)
        about = sample is not None and total > COUNT_CAP
        if about:
            total = sample.rounded_total(at_least=total)
    # Scoring weighs each word by how many tasks have it, one more pass over every match: past RANK_BROADEST
    # matches that pass alone costs more than the rest of the search and the words say too little to rank by,
    # so such a search lists in catalog order, as does one whose total is an estimate (it has more than COUNT_CAP).
    ranked = not about and total <= RANK_BROADEST
    if every is None and ranked and total <= RANK_LIMIT:
        every = [r[0] for r in db.execute(f"{scored[0]} ORDER BY rank, rowid", scored[1])]
    if every is not None:
        rowids = every[offset:offset + size]
    elif ranked:
        rowids = _ranked_page(db, scored, (scope, params), offset, size)
    else:
        rowids = _catalog_page(db, scope, params, offset, size)
    if not facets:
        counted, facets_about = {}, False
    elif about:  # the facets from the same sample as the total
        counted, facets_about = _scaled_tally(sample.facet_rows(), total), True
    else:
        counted, facets_about = _task_facets(db, scope, params, total, every if every is not None else
                                             _draw_of(drawn, total))
    return {"tasks": _task_cards(db, rowids), "total": total, "total_about": about, "page": page, "size": size,
            "ranked": ranked, "ranked_matches": min(total, RANK_LIMIT) if ranked else 0, "facets": counted,
            "facets_about": facets_about}


def _listing(db: sqlite3.Connection, env: str | None, page: int, size: int, facets: bool, hidden: tuple) -> dict:
    """No words: the tasks in catalog order. Over the whole catalog the total is the stored number of tasks (less
    the hidden environments' own) and the facets are the task sample's, once it holds as many tasks as a facet draw
    would: counting and drawing 514,980 tasks cost 70 ms at 10x, the stored figures a millisecond."""
    scope, params = "SELECT rowid FROM task_facets", ()
    if env is not None:
        scope, params = f"{scope} WHERE env_key = (SELECT env_key FROM envs WHERE id = ?)", (env,)
    scope, params = _without_hidden(scope, params, hidden)
    rowids = _catalog_page(db, scope, params, (page - 1) * size, size)
    stored = task_sample.draw_sizes(db) if env is None else None
    total = stored["tasks"] - _hidden_tasks(db, hidden) if stored else None
    if total is not None and total > TASK_FACETS_EXACT and stored["sample"] >= TASK_FACET_SAMPLE:
        counted = _scaled_tally(task_sample.facet_rows_of_all(db, hidden), total) if facets else {}
        facets_about = facets
    else:
        # The same for every page of this list: counted once per connection to the (immutable) file. Over the
        # whole of today's catalog the facet draw walks every task's key (9 ms); the sample holds too few.
        def counts() -> tuple[int, dict, bool]:
            total, _ = _count(db, scope, params, draw_for=None, cap=None)
            return total, *(_task_facets(db, scope, params, total, None) if facets else ({}, False))

        total, counted, facets_about = memo.remembered(db, ("task_list", env, hidden, facets), counts)
    return {"tasks": _task_cards(db, rowids), "total": total, "total_about": False, "page": page, "size": size,
            "ranked": False, "ranked_matches": 0, "facets": counted, "facets_about": facets_about}


def _scope(match: str, env: str | None, hidden: tuple) -> tuple[str, tuple]:
    """The matches of `match` (an FTS5 expression) as a query of rowids, and its parameters."""
    scope, params = "SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH ?", (match,)
    if env is not None:
        scope += (" AND rowid IN (SELECT rowid FROM task_facets "
                  "WHERE env_key = (SELECT env_key FROM envs WHERE id = ?))")
        params += (env,)
    return _without_hidden(scope, params, hidden)


def _without_hidden(scope: str, params: tuple, hidden: tuple) -> tuple[str, tuple]:
    """The admin's hidden environments: their tasks are not matches at all."""
    if not hidden:
        return scope, params
    marks = ", ".join("?" for _ in hidden)
    scope += (" AND" if " WHERE " in scope else " WHERE") + (
        " rowid NOT IN (SELECT rowid FROM task_facets WHERE env_key IN "
        f"(SELECT env_key FROM envs WHERE id IN ({marks})))")
    return scope, params + hidden


def _hidden_tasks(db: sqlite3.Connection, hidden: tuple) -> int:
    if not hidden:
        return 0
    marks = ", ".join("?" for _ in hidden)
    return db.execute("SELECT count(*) FROM task_facets WHERE env_key IN "
                      f"(SELECT env_key FROM envs WHERE id IN ({marks}))", hidden).fetchone()[0]


def _every_scored(db: sqlite3.Connection, scope: str, params: tuple) -> list[int] | None:
    """Every match best first, from one pass that reads each match with its score; None past RANK_LIMIT matches
    (the caller counts them instead)."""
    scored = scope.replace("SELECT rowid FROM", "SELECT rowid, rank FROM", 1)
    rows = db.execute(f"{scored} ORDER BY rowid LIMIT ?", (*params, RANK_LIMIT + 1)).fetchall()
    if len(rows) > RANK_LIMIT:
        return None
    rows.sort(key=lambda row: (row[1], row[0]))  # as ORDER BY rank, rowid
    return [row[0] for row in rows]


def _ranked_page(db: sqlite3.Connection, scored: tuple[str, tuple], listed: tuple[str, tuple], offset: int,
                 size: int) -> list[int]:
    """One page of matches, best first. Scoring re-reads each match's text, so only the first RANK_LIMIT matches
    in catalog order are scored: they come first, best first, and the matches past them follow in catalog order.
    `scored` and `listed` are the same matches, as ranking and as catalog order read them fastest."""
    page: list[int] = []
    if offset < RANK_LIMIT:  # the scored part: one pass over its matches, each scored as it is read
        scope, params = scored
        with_rank = scope.replace("SELECT rowid FROM", "SELECT rowid, rank FROM", 1)
        page = [r[0] for r in db.execute(f"SELECT rowid FROM ({with_rank} ORDER BY rowid LIMIT ?) "
                                         "ORDER BY rank, rowid LIMIT ? OFFSET ?", (*params, RANK_LIMIT, size, offset))]
    if len(page) < size:
        page += _catalog_page(db, *listed, RANK_LIMIT + max(0, offset - RANK_LIMIT), size - len(page))
    return page


def _catalog_page(db: sqlite3.Connection, scope: str, params: tuple, offset: int, size: int) -> list[int]:
    return [r[0] for r in db.execute(f"{scope} ORDER BY rowid LIMIT ? OFFSET ?", (*params, size, offset))]


def task_tokens(q: str) -> list[str]:
    """The words of a task search: the same words as every search (rlx/catalog/words.py)."""
    return search_words(q)


def _task_match(tokens: list[str]) -> str:
    """Each token a quoted prefix; a single character is a whole word ("c", "r"), since as a prefix it would
    match a large share of the vocabulary and say nothing."""
    return " ".join(f'"{token}"' if len(token) == 1 else f'"{token}"*' for token in tokens)


def _spelled_out(db: sqlite3.Connection, tokens: list[str]) -> tuple[str, bool]:
    """The same matches as _task_match, each long prefix written as the words it begins (none: left a prefix),
    and whether the two score alike: each prefix spelled out as one word at most, so the phrases are the same
    tasks with the same occurrences. The words are ANDed explicitly: FTS5 puts an implicit AND between phrases
    only, not beside parentheses."""
    parts, spelled, same_scores = [], False, True
    for token in tokens:
        words = task_terms.words_beginning(db, token)
        spelled = spelled or bool(words)
        if words:
            parts.append("(" + " OR ".join(f'"{word}"' for word in words) + ")" if len(words) > 1 else f'"{words[0]}"')
            same_scores = same_scores and len(words) == 1
        else:
            parts.append(_task_match([token]))
    return (" AND ".join(parts), same_scores) if spelled else (_task_match(tokens), True)


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


def _draw_for(sample: Estimate | None) -> int | None:
    """How many matches the count's draw is made for (see _count): TASK_DRAW_WITH_COUNT for a search in one
    environment (no estimate); for a search of every task, 0.7 of what the task sample estimates, when that is past
    the exact facet count and the total will not be an estimate (whose facets come from the sample): a smaller
    draw for more matches is a part of it, and at today's catalog (about 90 sampled matches per 11,000) 0.7 of
    the estimate is three standard errors below it. Fewer matches than that: the facets take a pass of their own."""
    if sample is None:
        return TASK_DRAW_WITH_COUNT
    if TASK_FACETS_EXACT < sample.total <= COUNT_CAP:
        return max(TASK_FACETS_EXACT + 1, int(sample.total * 0.7))
    return None


def _count(db: sqlite3.Connection, scope: str, params: tuple, draw_for: int | None, cap: int | None
           ) -> tuple[int, tuple[int, list[int]] | None]:
    """The number of matches, or cap + 1 when there are more than `cap`; with `draw_for`, also the matches in the
    facet sample's draw for that many matches, with its share, read in the same pass (None when there are fewer
    matches): reading a broad word's matches is most of a search's cost, and a second pass for the sample would
    double it."""
    share = _share(draw_for) if draw_for is not None else None
    aggregate = f"count(*), json_group_array(rowid) FILTER (WHERE {DRAW_HASH_SQL} < ?)" if share else "count(*)"
    if cap is not None and (draw_for is None or draw_for > cap // 2):
        scope, params = f"SELECT {aggregate} FROM ({scope} LIMIT ?)", (*params, cap + 1)
    else:  # few matches expected: counted straight off the word index, twice as fast as through a LIMIT
        scope = scope.replace("SELECT rowid FROM", f"SELECT {aggregate} FROM", 1)
    if share is None:
        return db.execute(scope, params).fetchone()[0], None
    total, drawn = db.execute(scope, (share, *params)).fetchone()
    return total, (share, json.loads(drawn)) if total >= draw_for else None


def _draw_of(drawn: tuple[int, list[int]] | None, total: int) -> list[int] | None:
    """The count's draw, when it holds the facet draw for `total` matches (its share is at least that one's)."""
    if drawn is None or total <= TASK_FACETS_EXACT or _share(total) > drawn[0]:
        return None
    return drawn[1]


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


def _top(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:FACET_SIZE]


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
