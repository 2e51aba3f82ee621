"""The task sample: a fixed pseudo-random draw of one task in ONE_IN with a word index of their own, so a broad
task search says about how many tasks match, and how they split by category and difficulty, reading a hundredth
of the entries a count of its matches would read.

Counting every match of a common prefix ("gra": 113,000 tasks at ten times today's catalog) walks its whole list in
the word index, a cost that grows with the catalog. The same words looked up in the sample's index give the share of
the catalog that matches; times the number of tasks, that is the estimate. The draw is a hash of the task key (the
same multiplicative hash as the facet draw, schema.DRAW_HASH_SQL), not a range of keys: each dataset's tasks are one
block of keys (rlx/snapshot/task_keys.py), so any range would over- or under-count whole datasets.

Made again by every build from the tasks and their facet table: 0.02 s of CPU in an hourly build at today's catalog
(412 tasks drawn), about 0.25 s at ten times it (4,120 drawn; the whole facet table is read to draw them).
"""

from __future__ import annotations

import json
import sqlite3

from rlx.snapshot.schema import DRAW_HASH_SQL, TASK_WORDS
from rlx.snapshot.search_process import shadow_tables

# One task in this many is drawn: a search at the exact count's cap (task_search.COUNT_CAP, 20,000 matches) then has
# about 160 of its matches in the sample at any catalog size, an estimate within 8 % (one standard error), and the
# draw costs the build about 0.02 s of CPU per 50,000 tasks.
ONE_IN = 125
# meta: {"tasks": tasks the draw was made from, "sample": tasks drawn, "facets": [[category, difficulty, n], ...]
# over the whole sample (the task list with no words shows them: grouping its 4,120 rows at 10x cost 5.7 ms of CPU
# on the shared 2-core host)}
META_KEY = "task_sample"
# The sample's word index cuts words exactly as tasks_fts does (rlx/snapshot/schema.py): the same search finds the
# same tasks. Contentless: it stores only the words, and the rowids are the tasks' keys.
_TABLES = (
    "CREATE TABLE task_sample (rowid INTEGER PRIMARY KEY, category TEXT, difficulty TEXT)",
    f"CREATE VIRTUAL TABLE task_sample_fts USING fts5(title, brief, words, content='', {TASK_WORDS})",
)

# What write_sample writes, for the build to check: the sample, its word index's own tables, and meta.
SAMPLE_TABLES = ("task_sample", *shadow_tables(("task_sample_fts",)), "meta")


def write_sample(db: sqlite3.Connection) -> None:
    """Draw the sample from the tasks in the file and index its words (inside the build's transaction)."""
    for table in ("task_sample", "task_sample_fts"):
        db.execute(f"DROP TABLE IF EXISTS main.{table}")  # an hourly build starts from the previous snapshot's file
    for statement in _TABLES:
        db.execute(statement)
    tasks = db.execute("SELECT count(*) FROM task_facets").fetchone()[0]
    share = 2**32 // ONE_IN
    db.execute(f"INSERT INTO task_sample (rowid, category, difficulty) SELECT rowid, category, difficulty "
               f"FROM task_facets WHERE {DRAW_HASH_SQL} < ?", (share,))
    db.execute("INSERT INTO task_sample_fts (rowid, title, brief, words) SELECT t.rowid, t.title, t.brief, t.words "
               "FROM task_sample s JOIN tasks t ON t.rowid = s.rowid")
    drawn = db.execute("SELECT count(*) FROM task_sample").fetchone()[0]
    facets = db.execute("SELECT category, difficulty, count(*) FROM task_sample GROUP BY category, difficulty")
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
               (META_KEY, json.dumps({"tasks": tasks, "sample": drawn, "facets": [list(row) for row in facets]})))


def draw_sizes(db: sqlite3.Connection) -> dict | None:
    """{"tasks": tasks in the catalog, "sample": tasks drawn}, as the build counted them; None in a file without."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return json.loads(row[0]) if row else None


def facet_rows_of_all(db: sqlite3.Connection, hidden: tuple[str, ...] = ()) -> list[tuple]:
    """(category, difficulty, n) over the whole sample, the `hidden` environments' tasks left out: the build's
    tally, less the hidden environments' own rows (found by their env_key, a few at most)."""
    counts = {(cat, diff): n for cat, diff, n in draw_sizes(db)["facets"]}
    if hidden:
        marks = ", ".join("?" for _ in hidden)
        for cat, diff, n in db.execute(
                "SELECT s.category, s.difficulty, count(*) FROM task_sample s WHERE s.rowid IN (SELECT rowid FROM "
                f"task_facets WHERE env_key IN (SELECT env_key FROM envs WHERE id IN ({marks}))) "
                "GROUP BY s.category, s.difficulty", hidden):
            counts[cat, diff] -= n
    return [(cat, diff, n) for (cat, diff), n in counts.items() if n > 0]


def _not_hidden(column: str, hidden: tuple[str, ...]) -> str:
    """A condition to AND on: `column` is no task of the `hidden` environments."""
    if not hidden:
        return ""
    marks = ", ".join("?" for _ in hidden)
    return (f" AND {column} NOT IN (SELECT rowid FROM task_facets WHERE env_key IN "
            f"(SELECT env_key FROM envs WHERE id IN ({marks})))")


class Estimate:
    """What the sample says of one search: about how many tasks match, and the matches it holds. The tasks of
    `hidden` environments (the admin's) are no matches: they leave the sample's count and facets, so a total past
    the exact count says nothing of them either."""

    def __init__(self, db: sqlite3.Connection, match: str, hidden: tuple[str, ...] = ()):
        self._db, self._match, self._hidden = db, match, tuple(hidden)
        drawn = draw_sizes(db)
        self.seen = db.execute("SELECT count(*) FROM task_sample_fts WHERE task_sample_fts MATCH ?"
                               f"{_not_hidden('rowid', self._hidden)}", (match, *self._hidden)).fetchone()[0]
        self.total = self.seen * drawn["tasks"] / drawn["sample"] if drawn["sample"] else 0.0

    def rounded_total(self, at_least: int) -> int:
        """The estimate to two significant figures (it is no closer), and never below what is known to match."""
        return max(at_least, int(float(f"{self.total:.2g}")))

    def facet_rows(self):
        """(category, difficulty, n) over the sample's matches."""
        return self._db.execute("SELECT s.category, s.difficulty, count(*) FROM task_sample_fts f "
                                "JOIN task_sample s ON s.rowid = f.rowid WHERE f.task_sample_fts MATCH ?"
                                f"{_not_hidden('f.rowid', self._hidden)} GROUP BY s.category, s.difficulty",
                                (self._match, *self._hidden))
