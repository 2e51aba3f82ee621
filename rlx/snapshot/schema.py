"""The snapshot's layout: its version number and every CREATE statement, in one place.

Bump SCHEMA whenever a table or column changes meaning: the publisher then writes a new pointer name
(snapshots/LATEST.v<SCHEMA>.json), so an app of the old version keeps reading the snapshots it understands.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

SCHEMA = 2  # 2: env_splits (a rows dataset's splits and row counts), search_blob as words
MMAP_BYTES = 512 * 1024 * 1024

# Filled row by row during the build.
TABLES = (
    # One row per public environment. `id` is "org/name" for a dataset and "space:org/name" for a Space (the two
    # may share a name); `search_blob` is its text's words as word search reads them (rlx/catalog/words.py).
    """CREATE TABLE envs (
        rowid INTEGER PRIMARY KEY,
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
    """CREATE TABLE tasks (
        rowid INTEGER PRIMARY KEY,
        env_id TEXT NOT NULL,
        ref TEXT NOT NULL,
        title TEXT NOT NULL,
        brief TEXT NOT NULL,
        category TEXT,
        difficulty TEXT,
        grading TEXT,
        runtime TEXT,
        runs_here INTEGER,
        tags TEXT NOT NULL
    )""",
    # A rows dataset's splits with their row counts (task_count is their sum; tasks holds the first rows of each).
    "CREATE TABLE env_splits (env_id TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL, rows INTEGER NOT NULL, "
    "PRIMARY KEY (env_id, config, split)) WITHOUT ROWID",
    # The task facets, narrow, so counting them over thousands of matches reads a few pages, not the wide rows.
    """CREATE TABLE task_facets (
        rowid INTEGER PRIMARY KEY,
        env_id TEXT NOT NULL,
        category TEXT,
        difficulty TEXT
    )""",
    # Each environment facet counted over the whole catalog: the unfiltered home page reads these few rows
    # instead of grouping every environment's tags.
    "CREATE TABLE facet_totals (facet TEXT NOT NULL, value TEXT NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (facet, value)) WITHOUT ROWID",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)

# Run once every row is in.
TOTALS = (
    "INSERT INTO task_facets (rowid, env_id, category, difficulty) "
    "SELECT rowid, env_id, category, difficulty FROM tasks",
    "INSERT INTO facet_totals (facet, value, n) SELECT 'kind', kind, count(*) FROM envs GROUP BY kind",
    "INSERT INTO facet_totals (facet, value, n) SELECT 'tags', tag, count(*) FROM env_tags GROUP BY tag",
)

# External-content FTS tables, filled by one 'rebuild' after the rows are in. `content="..."` in double quotes
# so tools that detect FTS tables (Datasette among them) link each to its table.
FTS = (
    # Trigram over the one search column: a quoted word matches exactly where it occurs as a substring.
    'CREATE VIRTUAL TABLE envs_fts USING fts5(search_blob, content="envs", content_rowid="rowid", '
    "tokenize=\"trigram\")",
    # Words, accents folded. prefix='3' answers the three letters people type first ("gra") from the index;
    # detail=column keeps no word positions (we never search phrases), which with briefs cut at 240 characters
    # took 7,225 environments and 51,498 tasks from 84 to 58 MB and the build from 3.0 to 2.1 s (the
    # benchmarks/ figures). Prefixes of other lengths walk the term list, a few milliseconds more.
    'CREATE VIRTUAL TABLE tasks_fts USING fts5(title, brief, content="tasks", content_rowid="rowid", '
    "tokenize=\"unicode61 remove_diacritics 2\", prefix='3', detail=column)",
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
    "CREATE INDEX tasks_by_env ON tasks (env_id, ref)",
    "CREATE INDEX task_facets_by_env ON task_facets (env_id)",
)

FTS_TABLES = ("envs_fts", "tasks_fts")


def pointer_name(schema: int = SCHEMA) -> str:
    """The pointer file for one schema version, inside the snapshots folder."""
    return f"LATEST.v{schema}.json"


def open_immutable(path: Path) -> sqlite3.Connection:
    """A read-only connection that never writes, locks or checks the file for changes (it never changes)."""
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)  # autocommit
    # Read through a memory map: every connection and process shares the OS's copy of the pages, instead of
    # each warming a private page cache; safe because the file never changes while it is open.
    db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
    # Word matches are gathered once per query into a temporary table (memory only; the file stays untouched).
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
