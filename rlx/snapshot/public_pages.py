"""What search engines and link previews are told, read from the snapshot: the sitemap's pages one shard at a
time, and one environment's or task's card.

A shard is a range of rowids: shards 1..E cover the environments (rowids (k-1)*size+1 .. k*size), the shards after
them the tasks the same way from the lowest task key (task keys start far from 1: rlx/snapshot/task_keys.py, which
also keeps them from spreading over more than about twice the tasks). Rowids are unique integers, so a range of
`size` of them holds at most `size` rows whatever gaps there are, and a shard is one primary-key range scan: no
OFFSET walk, no count of the whole catalog, and rows come off a cursor, never as a list of all of them. Hidden
environments are left out per query (the admin's settings change between snapshots); private and gated repositories
are never in the snapshot at all.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Iterator

SHARD_SIZE = 10_000  # the sitemaps.org limit is 50,000 URLs; smaller shards stay fast to build and fetch
FETCH_ROWS = 500


@dataclass(frozen=True)
class ShardPlan:
    env_shards: int
    task_shards: int
    first_task: int = 1  # the lowest task key

    @property
    def count(self) -> int:
        return self.env_shards + self.task_shards


def plan(db: sqlite3.Connection, size: int = SHARD_SIZE) -> ShardPlan:
    """How many shards the catalog makes: three look-ups, each the first or last entry of a b-tree."""
    last_env = db.execute("SELECT max(rowid) FROM envs").fetchone()[0] or 0
    first_task, last_task = db.execute("SELECT min(rowid), max(rowid) FROM tasks").fetchone()
    if first_task is None:
        return ShardPlan(-(-last_env // size), 0)
    return ShardPlan(-(-last_env // size), -(-(last_task - first_task + 1) // size), first_task)


def shard_rows(db: sqlite3.Connection, number: int, hidden: frozenset[str] | set[str],
               size: int = SHARD_SIZE) -> Iterator[tuple[str, str, str | None, str | None]]:
    """(what, environment id, task ref or None, modified) for each listed page of shard `number` (1-based),
    in rowid order. `what` is "env" or "task"; a Space's id starts with "space:"."""
    shards = plan(db, size)
    if not 1 <= number <= shards.count:
        return
    if number <= shards.env_shards:
        low = (number - 1) * size
        cursor = db.execute("SELECT id, modified FROM envs WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
                            (low, low + size))
        for batch in iter(lambda: cursor.fetchmany(FETCH_ROWS), []):
            for env_id, modified in batch:
                if env_id not in hidden:
                    yield "env", env_id, None, modified
        return
    low = shards.first_task - 1 + (number - shards.env_shards - 1) * size
    # Tasks of datasets only (a Space's page lists its own); the environment's modified date dates its tasks.
    cursor = db.execute("SELECT e.id, t.ref, e.modified FROM tasks AS t JOIN envs AS e ON e.env_key = t.env_key "
                        "WHERE t.rowid > ? AND t.rowid <= ? AND e.repo_type = 'dataset' ORDER BY t.rowid",
                        (low, low + size))
    for batch in iter(lambda: cursor.fetchmany(FETCH_ROWS), []):
        for env_id, ref, modified in batch:
            if env_id not in hidden:
                yield "task", env_id, ref, modified


def env_card(db: sqlite3.Connection, env_id: str) -> dict | None:
    """What a preview image and a page's metadata show of one public environment; None when the snapshot does
    not list it (private, gated, unknown)."""
    row = db.execute("SELECT id, key, repo_type, kind, heading, brief, likes, downloads, task_count, modified "
                     "FROM envs WHERE id = ?", (env_id,)).fetchone()
    if row is None:
        return None
    keys = ("id", "key", "repo_type", "kind", "heading", "brief", "likes", "downloads", "task_count", "modified")
    return dict(zip(keys, row))


def task_card(db: sqlite3.Connection, env_id: str, ref: str) -> dict | None:
    """A listed task's title and brief (answers already withheld when the snapshot was built); None if unlisted."""
    row = db.execute("SELECT title, brief FROM tasks WHERE env_key = (SELECT env_key FROM envs WHERE id = ?) "
                     "AND ref = ? LIMIT 1", (env_id, ref)).fetchone()
    return {"title": row[0], "brief": row[1]} if row else None
