"""What a snapshot file says once, remembered on its connection: the file never changes (schema.open_immutable),
so a figure drawn from it (the whole catalog's facet counts, the set of every environment) is the same for every
request that reads it, as Datasette keeps the table counts of an immutable file.

Only connections opened by open_immutable remember (a SnapshotConnection); any other connection, a writable one in
a build or a test, or a wrapper that times statements, computes each time, so nothing stale is ever served.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, TypeVar

T = TypeVar("T")
MAX_ENTRIES = 64  # per connection: a few fixed figures; a bound all the same, since keys may carry a setting


class SnapshotConnection(sqlite3.Connection):
    """A connection to an immutable snapshot file, with room for what it has computed once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.remembered: dict = {}


def remembered(db, key, compute: Callable[[], T]) -> T:
    """compute(), or what it gave the last time on this connection (callers never change the value in place)."""
    memo = getattr(db, "remembered", None)
    if memo is None:
        return compute()
    try:
        return memo[key]
    except KeyError:
        pass
    value = compute()
    if len(memo) >= MAX_ENTRIES:
        memo.clear()
    memo[key] = value
    return value
