"""An hourly build's environment rows: taken from the previous snapshot in SQL while an environment's card is
unchanged.

Every hour each environment's likes, downloads and trending score move, and its rowid with them (rowids follow the
trending order: schema.TRENDING_ROWIDS), so every environment table is written again. But what an unchanged card
makes (heading, brief, tags, search words, key, plain tags) is in the previous snapshot already. Such an
environment gets a row in a temporary table (its new rowid, its previous one, and the columns that can move
without its card changing), and one INSERT ... SELECT joined with the previous rows writes them all. Their tags
are the tags' search sets renumbered (env_tags holds the same pairs), written in the table's key order. An
environment whose card changed, or a new one, has its row made and its words cut again (env_values.py). The search
sets are renumbered alongside (renumbered_sets.py).
"""

from __future__ import annotations

import sqlite3

from rlx.snapshot.dataset_rows import strings_json
from rlx.snapshot.env_values import (ENV_BRIEF_CHARS, ENV_COLUMNS, HEADING_CHARS, INSERT_ENVS, card_text, clipped,
                                     counters, env_values)
from rlx.snapshot.renumbered_sets import RenumberedSets
from rlx.sources.base import RepoRecord

# No column types: each value is stored as the build gave it, and envs' own columns convert it as a direct insert
# would.
_MOVES = ("CREATE TEMP TABLE env_moves (rowid INTEGER PRIMARY KEY, before INTEGER NOT NULL, kind, likes, downloads, "
          "trending, created, modified, task_count, sdk, stage)")
# The columns taken from the moves table; the others (the card's) from the previous row.
_MOVED = ("rowid", "kind", "likes", "downloads", "trending", "created", "modified", "task_count", "sdk", "stage")
_CARRY_ENVS = (f"INSERT INTO envs ({ENV_COLUMNS}) SELECT "
               + ", ".join(f"m.{column}" if column in _MOVED else f"p.{column}" for column in ENV_COLUMNS.split(", "))
               + " FROM temp.env_moves m JOIN previous.envs p ON p.rowid = m.before ORDER BY m.rowid")


def previous_envs(db: sqlite3.Connection) -> dict[str, tuple[int, int, str, str, str]]:
    """Each environment of the attached previous snapshot: (rowid, env_key, heading, brief, tags)."""
    return {env_id: tuple(rest) for env_id, *rest in
            db.execute("SELECT id, rowid, env_key, heading, brief, tags FROM previous.envs")}


def _same_card(record: RepoRecord, before: tuple) -> bool:
    """Whether the record's card makes the heading, brief and tags `before` holds (previous_envs), and so the same
    words. Run for every environment every hour, so it does the least first: tags as listed (a tuple of distinct
    strings, which card_text would keep as they are) are compared as written."""
    try:
        tags = strings_json(record.tags)
    except TypeError:  # a tag that is no string: card_text makes it one
        tags = None
    if tags != before[4]:
        heading, brief, listed = card_text(record, before[2:4])
        return heading == before[2] and brief == before[3] and strings_json(listed) == before[4]
    card = record.card
    return (clipped(record.pretty_name, HEADING_CHARS, before[2]) == before[2]
            and clipped(card.get("short_description") or card.get("description"), ENV_BRIEF_CHARS, before[3]) == before[3])


class KeptEnvs:
    """The environment rows of an hourly build, added in rowid order; `previous` is previous_envs()."""

    def __init__(self, previous: dict[str, tuple]):
        self.previous = previous
        self.moves: list[tuple] = []
        self.fresh: list[tuple] = []  # rows made again: a changed card, or a new environment
        self.sets = RenumberedSets(max((before[0] for before in previous.values()), default=0))
        # A new environment's key comes after every key the previous snapshot gave.
        self._new_keys = iter(range(max((before[1] for before in previous.values()), default=0) + 1, 2**62))

    def add(self, rowid: int, record: RepoRecord, env_id: str, kind: str, task_count: int) -> int:
        """The environment at `rowid`; its env_key (kept from the previous snapshot when it was there)."""
        self.sets.add_env(rowid, kind)
        before = self.previous.get(env_id)
        if before is not None and _same_card(record, before):
            self.moves.append((rowid, before[0], kind, *counters(record), record.created_at, record.last_modified,
                               task_count, record.sdk, record.stage))
            self.sets.renumber[before[0]] = rowid
            return before[1]
        env_key = before[1] if before is not None else next(self._new_keys)
        values, plain_tags = env_values(record, env_id, kind, task_count)
        self.fresh.append((rowid, env_key, *values))
        self.sets.add_fresh(rowid, values[-1], plain_tags)
        return env_key

    def write(self, db: sqlite3.Connection) -> None:
        """envs and env_tags (the previous snapshot attached as `previous`)."""
        db.execute(_MOVES)
        db.executemany(f"INSERT INTO temp.env_moves VALUES ({', '.join('?' * 11)})", self.moves)
        db.execute(_CARRY_ENVS)
        db.executemany(INSERT_ENVS, self.fresh)
        # One statement per tag, its rowids bound as one JSON list, in order (a set's members come out sorted): the
        # rows go in in env_tags' key order, for a third of the CPU of binding each pair.
        tags = self.sets.tag_sets(db)
        for tag in sorted(tags):
            db.execute("INSERT INTO env_tags (tag, env_rowid) SELECT ?, value FROM json_each(?)",
                       (tag, "[" + ",".join(map(str, tags[tag])) + "]"))
        db.execute("DROP TABLE temp.env_moves")
