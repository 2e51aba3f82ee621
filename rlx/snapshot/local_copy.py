"""A process's local copies of snapshot databases: copied out of the store while hashed, checked, and deleted when
the process that made them is gone.

SQLite never opens a file on the store (a bucket mount may be slow or change under it), only a copy on local disk
named "<pid>-<number>-<name>", so a later process can tell a dead process's leftovers from a live one's files.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from pathlib import Path

from rlx.snapshot.pointer import Rejected
from rlx.snapshot.schema import SCHEMA, open_immutable, read_meta
from rlx.store.atomic_files import process_alive

_CACHED = re.compile(r"\.?(\d+)-\d+-")  # "[.]<pid>-<number>-<name>": which process a cached copy belongs to


def copy_measured(source: Path, target: Path, expected_size: int) -> tuple[str, int]:
    """Copy to `target` (temp then rename), hashing as it goes; stops reading just past the expected size."""
    digest, size = hashlib.sha256(), 0
    tmp = target.with_name(target.name + ".part")
    try:
        with open(source, "rb") as src, open(tmp, "wb") as out:
            while size <= expected_size and (chunk := src.read(min(1 << 20, expected_size + 1 - size))):
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
        os.replace(tmp, target)
    except OSError as exc:
        raise Rejected(f"the database could not be copied ({exc.strerror or exc}).") from None
    finally:
        tmp.unlink(missing_ok=True)
    return digest.hexdigest(), size


def verified_meta(path: Path, counts: dict | None, own_counts: bool = False) -> dict:
    """The database's meta, once its schema, its row counts (the pointer's, or with `own_counts` its meta's) and
    SQLite's quick_check agree.

    Checked on a connection of its own, closed after: quick_check reads every page, and the pages the serving
    connections keep should be the ones queries read (when they were memory-mapped, every web worker held the
    whole file after this check, 591 MB each at 10x the catalog)."""
    try:
        db = open_immutable(path)
    except sqlite3.Error as exc:
        raise Rejected(f"the database cannot be opened ({exc}).") from None
    try:
        return _checked(db, counts, own_counts)
    finally:
        db.close()


def _checked(db: sqlite3.Connection, counts: dict | None, own_counts: bool) -> dict:
    try:
        meta = read_meta(db)
        if meta["schema"] != SCHEMA:
            raise Rejected(f"the database is schema {meta['schema']}, not {SCHEMA}.")
        counts, says = (meta["counts"], "its meta table says") if own_counts else (counts, "the pointer says")
        if counts is not None:
            for table in ("envs", "tasks"):
                found = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                if found != counts.get(table):
                    raise Rejected(f"the database has {found} {table}; {says} {counts.get(table)}.")
        verdict = db.execute("PRAGMA quick_check").fetchone()[0]
    except (sqlite3.Error, ValueError) as exc:
        raise Rejected(f"the database is not a readable snapshot ({exc}).") from None
    if verdict != "ok":
        raise Rejected(f"the database failed quick_check ({verdict}).")
    return meta


def remove_orphans(folder: Path) -> None:
    """Delete copies left by processes that are gone (a crash skips the last-one-out cleanup)."""
    for path in folder.iterdir():
        match = _CACHED.match(path.name)
        if match and not process_alive(int(match.group(1))):
            path.unlink(missing_ok=True)
