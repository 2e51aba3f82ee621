"""Warming a newly opened snapshot before it serves: the pages every common request reads first are read once on
the connection that will answer the first request, so that request does not pay for them.

A connection starts with an empty page cache (rlx/snapshot/schema.py: no memory map, CACHE_KIB per connection) and
must parse the schema on its first statement. Measured at 10x the catalog, a fresh connection's first search read
0.1 to 0.3 MB of pages it then kept; the steps below read those, and nothing that grows with the catalog: the
schema, the meta and facet_totals rows, the 'all' and kind sets and the largest tag sets, the first page of every
sort index with the trending page's rows, and each FTS table's structure records. A query's own pages (its words'
sets, its task matches) stay its own.

Bounded: every step reads a fixed number of rows, and a progress handler stops the whole warm-up past BUDGET_S
(a slow disk must not hold up the swap). A warm-up that fails only costs the first request its pages: the error
is logged and kept in the reader's status, never raised.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass

from rlx.snapshot.schema import SORT_COLUMNS

log = logging.getLogger("rlx.snapshot")

BUDGET_S = 0.5  # wall time at most (the steps take a few milliseconds when the file is in the OS page cache)
TOP_TAGS = 64  # the tag facet reads the largest tag sets first and usually stops within these
PAGE = 24  # the first page of a listing, as the home page and the search show it
_PROGRESS_EVERY = 1000  # SQLite VM steps between looks at the clock

# Each step is one statement whose rows are read and dropped (blobs included: a set's overflow pages are read).
STEPS: tuple[tuple[str, str], ...] = (
    ("schema", "SELECT name, sql FROM sqlite_master"),
    ("meta", "SELECT key, value FROM meta"),
    ("facet_totals", "SELECT facet, value, n FROM facet_totals"),
    ("env_sets", "SELECT key, n, members FROM env_sets WHERE facet IN ('all', 'kind')"),
    ("top_tags", f"SELECT key, n, members FROM env_sets WHERE facet = 'tag' ORDER BY n DESC LIMIT {TOP_TAGS}"),
    ("word_sets", "SELECT key FROM env_sets WHERE facet = 'word' LIMIT 1"),
    *((f"sort_{name}", f"SELECT rowid FROM envs ORDER BY {column} DESC, id LIMIT {PAGE}")
      for name, column in SORT_COLUMNS.items()),
    ("trending_cards", f"SELECT * FROM envs WHERE rowid IN (SELECT rowid FROM envs ORDER BY trending DESC, id "
                       f"LIMIT {PAGE})"),
    # A MATCH that finds nothing opens the FTS table (its config and structure records, its term index's root).
    ("tasks_fts", "SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH '\"qqzqqzqq\"' LIMIT 1"),
    ("envs_fts", "SELECT rowid FROM envs_fts WHERE envs_fts MATCH '\"qqzqqzqq\"' LIMIT 1"),
    ("task_facets", f"SELECT category, difficulty FROM task_facets LIMIT {PAGE}"),
    # The path down the list of task words a typed prefix is looked up in (rlx/snapshot/task_terms.py).
    ("task_terms", "SELECT term FROM task_terms WHERE term >= 'qqzqqzqq' LIMIT 1"),
    # The task sample a broad task search estimates from (rlx/snapshot/task_sample.py): one task in 125, 4,120
    # facet rows (about 15 pages) at ten times today's catalog.
    ("task_sample_fts", "SELECT rowid FROM task_sample_fts WHERE task_sample_fts MATCH '\"qqzqqzqq\"' LIMIT 1"),
    ("task_sample", "SELECT category, difficulty FROM task_sample"),
)


@dataclass
class WarmUp:
    """What the warm-up of one connection did, for the reader's status."""

    steps: int  # steps that ran to the end
    of: int  # steps there are
    ms: float
    error: str | None = None  # the first step that failed, and why

    def as_dict(self) -> dict:
        return {"steps": self.steps, "of": self.of, "ms": round(self.ms, 1), "error": self.error}


def warm_up(db: sqlite3.Connection, budget_s: float | None = None, clock=time.monotonic) -> WarmUp:
    """Run STEPS on `db` within `budget_s` (BUDGET_S); never raises (a failed step is noted, the rest skipped)."""
    budget_s = BUDGET_S if budget_s is None else budget_s
    started = clock()
    deadline = started + budget_s
    done, error = 0, None
    db.set_progress_handler(lambda: int(clock() > deadline), _PROGRESS_EVERY)  # nonzero interrupts the statement
    try:
        for name, sql in STEPS:
            if clock() > deadline:
                error = f"stopped at {name}: over its {budget_s:g} s budget"
                break
            try:
                for _ in db.execute(sql):
                    pass
            except Exception as exc:  # a snapshot missing a table, an interrupt: the swap goes on regardless
                error = f"{name}: {exc}"
                break
            done += 1
    finally:
        db.set_progress_handler(None, 0)
    result = WarmUp(steps=done, of=len(STEPS), ms=(clock() - started) * 1000, error=error)
    if error:
        log.warning("snapshot.warm_up_incomplete steps=%d/%d error=%s", done, len(STEPS), error)
    return result
