"""The Health facet and badge, read from the snapshot's env_health (rlx/snapshot/schema.py): each checked
environment's verdict. Checked environments are few (a check costs sandboxes), so the table is read whole and
its sets are made per query; every environment without a row is "not checked".
"""

from __future__ import annotations

import json
import sqlite3

from pyroaring import BitMap

from rlx.runs.health import NOT_CHECKED, VERDICTS  # the facet lists them in this order

__all__ = ["NOT_CHECKED", "VERDICTS", "counts", "of_rowids", "of_verdict"]


def _checked(db: sqlite3.Connection) -> dict[str, BitMap]:
    sets: dict[str, BitMap] = {}
    for rowid, verdict in db.execute("SELECT env_rowid, verdict FROM env_health"):
        sets.setdefault(verdict, BitMap()).add(rowid)
    return sets


def of_verdict(db: sqlite3.Connection, verdict: str, everyone: BitMap) -> BitMap:
    """The environments with this verdict; "not checked": those without one."""
    sets = _checked(db)
    if verdict == NOT_CHECKED:
        return everyone - BitMap.union(BitMap(), *sets.values())
    return sets.get(verdict, BitMap())


def counts(db: sqlite3.Connection, within: BitMap) -> list[tuple[str, int]]:
    """Each verdict's number of environments in `within`, in VERDICTS order (verdicts with none left out)."""
    sets = _checked(db)
    found = {verdict: within.intersection_cardinality(members) for verdict, members in sets.items()}
    found[NOT_CHECKED] = len(within) - sum(found.values())
    return [(v, found[v]) for v in VERDICTS if found.get(v)]


def of_rowids(db: sqlite3.Connection, rowids: list[int]) -> dict[int, dict]:
    """{rowid: {"verdict", "counts"}} of the checked environments among `rowids` (a page of cards)."""
    if not rowids:
        return {}
    rows = db.execute(f"SELECT env_rowid, verdict, counts FROM env_health WHERE env_rowid IN "
                      f"({', '.join('?' * len(rowids))})", rowids)
    return {rowid: {"verdict": verdict, "counts": json.loads(text)} for rowid, verdict, text in rows}
