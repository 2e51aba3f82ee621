"""The snapshot's layout: its version number and every CREATE statement, in one place.

Bump SCHEMA whenever a table or column changes meaning: the publisher then writes a new pointer name
(snapshots/LATEST.v<SCHEMA>.json), so an app of the old version keeps reading the snapshots it understands.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

SCHEMA = 9  # 2: env_splits, search_blob as words; 3: tasks point at envs by rowid, env_sources, lighter FTS;
# 4: tasks point at envs by env_key, task keys kept from hour to hour (rlx/snapshot/task_keys.py); 5: the task
# sample that broad task searches estimate from (rlx/snapshot/task_sample.py); 6: tasks.words, the rest of a
# task's prompt for task search; 7: the five kinds (rlx/catalog/kinds.py) in envs.kind; 8: env_health, each
# checked environment's health verdict; 9: task_terms, the task word index's words (rlx/snapshot/task_terms.py)
# A meta key, "1" when the environments' rowids follow the trending order ("trending DESC, id"): a trending page
# of any set of environments is then a slice of its rowids (rlx/snapshot/env_sets.py). A file without it (built
# before) has its trending pages read by walking the order's index.
TRENDING_ROWIDS = "envs_rowids_in_trending_order"
# A meta key: the page count of the last snapshot in this one's line that was written compact (from nothing, or
# with its kept tables repacked: rlx/snapshot/task_keys.py start_from_previous).
COMPACT_PAGES = "compact_pages"
CACHE_KIB = 8192  # each connection's page cache
# 8 KB pages hold the wide task rows with less slack than 4 KB (about 2% of the file at 7,225 environments).
PAGE_SIZE = 8192

# Filled row by row during the build.
TABLES = (
    # One row per public environment. `id` is "org/name" for a dataset and "space:org/name" for a Space (the two
    # may share a name); `search_blob` is its text's words as word search reads them (rlx/catalog/words.py).
    # `env_key` is the environment's own number, kept from snapshot to snapshot while it is listed (its rowid
    # follows trending and changes every hour): its tasks name it by this.
    """CREATE TABLE envs (
        rowid INTEGER PRIMARY KEY,
        env_key INTEGER NOT NULL,
        id TEXT NOT NULL UNIQUE,
        key TEXT NOT NULL,
        repo_type TEXT NOT NULL,
        kind TEXT NOT NULL,
        heading TEXT NOT NULL,
        brief TEXT NOT NULL,
        likes INTEGER NOT NULL,
        downloads INTEGER NOT NULL,
        trending REAL NOT NULL,
        created TEXT,
        modified TEXT,
        task_count INTEGER NOT NULL,
        tags TEXT NOT NULL,
        sdk TEXT,
        stage TEXT,
        search_blob TEXT NOT NULL
    )""",
    # Tag filters and the tag facet read this instead of parsing every row's JSON (see research/perf-anchors.md).
    "CREATE TABLE env_tags (tag TEXT NOT NULL, env_rowid INTEGER NOT NULL, PRIMARY KEY (tag, env_rowid)) "
    "WITHOUT ROWID",
    # A task names its environment by envs.env_key: the id's text on every task cost 5 MB of 58 at 51,498 tasks.
    # Its rowid is its key: a dataset's tasks are a block of consecutive keys (rlx/snapshot/task_keys.py).
    """CREATE TABLE tasks (
        rowid INTEGER PRIMARY KEY,
        env_key INTEGER NOT NULL,
        ref TEXT NOT NULL,
        title TEXT NOT NULL,
        brief TEXT NOT NULL,
        category TEXT,
        difficulty TEXT,
        grading TEXT,
        runtime TEXT,
        runs_here INTEGER,
        tags TEXT NOT NULL,
        words TEXT NOT NULL DEFAULT ''
    )""",
    # A rows dataset's splits with their row counts (task_count is their sum; tasks holds the first rows of each).
    "CREATE TABLE env_splits (env_id TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL, rows INTEGER NOT NULL, "
    "PRIMARY KEY (env_id, config, split)) WITHOUT ROWID",
    # The task facets, narrow, so counting them over thousands of matches reads a few pages, not the wide rows.
    """CREATE TABLE task_facets (
        rowid INTEGER PRIMARY KEY,
        env_key INTEGER NOT NULL,
        category TEXT,
        difficulty TEXT
    )""",
    # Each environment facet counted over the whole catalog: the unfiltered home page reads these few rows
    # instead of grouping every environment's tags.
    "CREATE TABLE facet_totals (facet TEXT NOT NULL, value TEXT NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (facet, value)) WITHOUT ROWID",
    # Which stored index each dataset's tasks came from (its fingerprint, rlx/snapshot/dataset_rows.py) and the kind
    # that index showed: the next build keeps the tasks of a dataset whose index is unchanged. Every dataset with
    # rows has one (fingerprint NULL: rows given as an Index object, never kept), so the next build knows whose
    # tasks to remove.
    "CREATE TABLE env_sources (env_rowid INTEGER PRIMARY KEY, fingerprint TEXT, found_kind TEXT)",
    # Each environment whose latest health check (rlx/runs/health.py) ended with a verdict: that verdict and its
    # tasks' counts (JSON). A few rows (checks cost sandboxes), read whole by the health facet
    # (rlx/snapshot/health_facet.py); an environment without a row is "not checked".
    "CREATE TABLE env_health (env_rowid INTEGER PRIMARY KEY, verdict TEXT NOT NULL, counts TEXT NOT NULL)",
    # Every word of the task word index, so a typed prefix is searched as the words it begins
    # (rlx/snapshot/task_terms.py): written once by a build from nothing, kept and brought up to date hourly.
    "CREATE TABLE task_terms (term TEXT PRIMARY KEY) WITHOUT ROWID",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)

# Run once every row is in (task_facets is filled by rlx/snapshot/task_keys.py).
TOTALS = (
    "INSERT INTO facet_totals (facet, value, n) SELECT 'kind', kind, count(*) FROM envs GROUP BY kind",
    "INSERT INTO facet_totals (facet, value, n) SELECT 'tags', tag, count(*) FROM env_tags GROUP BY tag",
)

# External-content FTS tables, filled by one 'rebuild' after the rows are in. `content="..."` in double quotes
# so tools that detect FTS tables (Datasette among them) link each to its table. Both keep no word positions
# (detail=none): no search is a phrase, and ranking reads the matched rows' text anyway (FTS5 tokenizes the
# content again for bm25 when positions are not stored), so results and their order are the same as with
# positions, for a third of the index and half its build time.
# How every word index of tasks cuts their words (tasks_fts, and the task sample's in task_sample.py): one search
# must find the same tasks in each.
TASK_TOKENIZER = "tokenize=\"unicode61 remove_diacritics 2\""
TASK_WORDS = f"{TASK_TOKENIZER}, prefix='3', detail=none"
# A pseudo-random draw that is the same on every request and in every build: a multiplicative hash of the rowid
# under a share of 2**32 (rows of one kind often sit in runs of rowids, which every-k-th would alias with).
DRAW_HASH_SQL = "((rowid * 2654435761) & 4294967295)"

FTS = (
    # The environment's words (search_blob: already lowercased, accents removed, one space between words), for
    # SQL readers of the file (Datasette's _search): the app's own search reads env_sets (search_tables.py). The
    # ascii tokenizer splits only at ASCII punctuation and spaces, so each stored word is one token, exactly as
    # rlx/catalog/words.py cut it: '"gra"*' finds the rows with a word starting "gra", '"c"' those with the word
    # "c". It replaced a trigram index: 6.7 of 58 MB and half a second of the build for 7,225 environments. No
    # prefix index: the app never reads this table, and without one '"gra"*' merges the terms that begin "gra"
    # (0.7 ms against 0.1 ms at 7,225 environments), where keeping prefixes of 2 and 3 letters cost half this
    # table's build.
    'CREATE VIRTUAL TABLE envs_fts USING fts5(search_blob, content="envs", content_rowid="rowid", '
    "tokenize=\"ascii\", detail=none)",
    # Words, accents folded. prefix='3' answers the three letters people type first ("gra") from the index.
    # Prefixes of other lengths walk the term list, a few milliseconds more.
    'CREATE VIRTUAL TABLE tasks_fts USING fts5(title, brief, words, content="tasks", content_rowid="rowid", '
    f"{TASK_WORDS})",
)

# Built after the rows are in (cheaper than keeping them up to date row by row).
SORT_COLUMNS = {
    "trending": "trending",
    "downloads": "downloads",
    "likes": "likes",
    "modified": "modified",
    "created": "created",
    "tasks": "task_count",
}

INDEXES = (
    # Every sort order is "column DESC, id": each index holds the rowid too, so a deep page is an OFFSET over
    # the index alone, and only the page's own rows are read from the table.
    *(f"CREATE INDEX envs_by_{name} ON envs ({column} DESC, id)" for name, column in SORT_COLUMNS.items()),
    # Kind filters, the kind facet, and a trending rank within one kind.
    "CREATE INDEX envs_by_kind ON envs (kind, trending DESC, id)",
    "CREATE INDEX env_tags_by_env ON env_tags (env_rowid, tag)",
    "CREATE UNIQUE INDEX envs_by_key ON envs (env_key)",
)
# The tasks' own: made by a build from nothing, kept by an hourly build (rlx/snapshot/task_keys.py).
TASK_INDEXES = (
    "CREATE INDEX tasks_by_env ON tasks (env_key, ref)",
    "CREATE INDEX task_facets_by_env ON task_facets (env_key)",
)


def pointer_name(schema: int = SCHEMA) -> str:
    """The pointer file for one schema version, inside the snapshots folder."""
    return f"LATEST.v{schema}.json"


def open_immutable(path: Path) -> sqlite3.Connection:
    """A read-only connection that never writes, locks or checks the file for changes (it never changes)."""
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    from rlx.snapshot.memo import SnapshotConnection  # it remembers what the file says once (memo.py)

    db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None,  # autocommit
                         factory=SnapshotConnection)
    # No memory map: a mapped page touched once stays in the process's resident memory (with the kernel's
    # read-around, 64 KB and more per random read), so a web worker at 10x the catalog held 280 MB of the file
    # after one pass of the search mix. Pages are read into a page cache of CACHE_KIB instead, as fast for the mix
    # from 8 MB up (benchmarks: the same in-process times at 1x and 10x) and bounded per connection.
    db.execute("PRAGMA mmap_size=0")
    db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    # Sorts and temporary b-trees a query needs stay in memory: the snapshot file is never written.
    db.execute("PRAGMA temp_store=MEMORY")
    return db


def read_meta(db: sqlite3.Connection) -> dict:
    """The meta table as {"schema": int, "built_at": str, "counts": dict}; ValueError when it is malformed."""
    values = dict(db.execute("SELECT key, value FROM meta").fetchall())
    try:
        return {"schema": int(values["schema"]), "built_at": values["built_at"],
                "counts": json.loads(values["counts"])}
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"the snapshot's meta table is malformed ({exc})") from None
