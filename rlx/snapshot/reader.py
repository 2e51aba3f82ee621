"""Choosing the snapshot a process answers from: follow the pointer, or else the newest good file on disk, or else
a build of its own; each candidate copied to local disk and checked (rlx/snapshot/local_copy.py) before it is
swapped in (rlx/snapshot/generation.py).

When the pointer cannot be followed (garbage, a database that fails its checks), every process serves the newest
database on disk that verifies by itself, other than the one the pointer names: a choice made from the files
alone, so all processes make the same one. Only with none on disk does a process build its own (the fallback).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from rlx.snapshot.generation import Generation, Generations, SnapshotUnavailable
from rlx.snapshot.local_copy import copy_measured, remove_orphans, verified_meta
from rlx.snapshot.pointer import DB_NAME, Rejected, named_db, parse_pointer
from rlx.snapshot.schema import SCHEMA, open_immutable, pointer_name
from rlx.snapshot.warm import warm_up
from rlx.store import Store

__all__ = ["Rejected", "SnapshotReader", "SnapshotUnavailable", "parse_pointer"]

log = logging.getLogger("rlx.snapshot")

REJECT_WINDOW = 600.0  # seconds before a rejected pointer or file is looked at again
DISK_CANDIDATES = 10  # newest databases on disk tried when the pointer is unusable (publish keeps five)


class SnapshotReader:
    """The snapshot this process answers from. Use `with reader.connection() as db:` for every query."""

    def __init__(self, store: Store, cache_dir: Path, fallback: Callable[[Path], object] | None = None,
                 clock: Callable[[], float] = time.time, offload: Callable[..., object] | None = None):
        self.store = store
        self.cache_dir = Path(cache_dir) / "snapshots"
        self.fallback = fallback
        self.clock = clock
        # Runs the copy, its sha256 and quick_check: `offload(fn, *args)`, fn's result. A gevent worker passes its
        # native thread pool, so those seconds of disk and hashing do not hold up the requests of its event loop.
        self._offload = offload or _call
        self._generations = Generations()
        self._check_lock = threading.Lock()  # one check at a time: two would copy the same file twice
        self._numbers = 0
        self._rejected: dict[tuple, float] = {}  # what was rejected -> when it may be tried again
        self._fallback_failed_at = -math.inf
        self._last_checked: float | None = None
        self._last_rejection: dict | None = None
        self._pointer_problem: dict | None = None  # why the pointer is not followed now, with the db it names
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        remove_orphans(self.cache_dir)

    @property
    def _current(self) -> Generation | None:
        return self._generations.current

    @property
    def generation(self) -> Generation | None:
        """The snapshot in use (a new object at every swap): what a result read from it may be kept against."""
        return self._generations.current

    # -- the pointer ------------------------------------------------------------------------------------------

    def check(self) -> bool:
        """Look at the pointer; swap in the snapshot it names when new and sound. True when a swap happened."""
        with self._check_lock:
            now = self.clock()
            self._last_checked = now
            swapped = self._follow_pointer(now)
            if self._pointer_problem is not None:
                swapped = self._use_newest_on_disk(now) or swapped
            if not swapped and self._current is None:
                swapped = self._use_fallback(now)
            return swapped

    def _follow_pointer(self, now: float) -> bool:
        path = self.store.snapshots_dir / pointer_name(SCHEMA)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return self._refuse_pointer(("missing",), None, f"there is no {path.name}.", now, logging.INFO)
        except OSError as exc:
            return self._refuse_pointer(("unreadable",), None, f"{path.name} cannot be read ({exc.strerror}).", now)
        try:
            pointer = parse_pointer(raw)
        except Rejected as exc:
            key = ("pointer", hashlib.sha256(raw).hexdigest())
            return self._refuse_pointer(key, named_db(raw), str(exc), now)
        current = self._current
        if current is not None and (current.name, current.sha256) == (pointer["db"], pointer["sha256"]):
            current.origin, self._pointer_problem = "pointer", None
            return False
        key = ("db", pointer["db"], pointer["sha256"], pointer["size"])
        if self._rejected.get(key, -math.inf) > now:
            return False  # rejected a moment ago: the problem noted then still stands
        try:
            generation = self._fetch(pointer, now)
        except Rejected as exc:
            return self._refuse_pointer(key, pointer["db"], str(exc), now)
        self._pointer_problem = None
        self._swap(generation)
        return True

    def _refuse_pointer(self, key: tuple, db: str | None, reason: str, now: float, level: int = logging.WARNING
                        ) -> bool:
        self._pointer_problem = {"at": _iso(now), "db": db, "reason": reason}
        return self._refuse(key, db, reason, now, level)

    def _use_newest_on_disk(self, now: float) -> bool:
        """The pointer is unusable: serve the newest database on disk that verifies, other than the one it names
        (names are UTC timestamps, so every process sorts them alike and picks the same file)."""
        folder = self.store.snapshots_dir
        try:
            names = sorted((p.name for p in folder.iterdir() if DB_NAME.fullmatch(p.name)), reverse=True)
        except OSError:
            return False
        for name in names[:DISK_CANDIDATES]:
            if name == (self._pointer_problem or {}).get("db"):
                continue
            current = self._current
            if current is not None and current.name == name:
                return False  # already serving it
            try:
                stat = (folder / name).stat()
            except OSError:
                continue
            key = ("disk", name, stat.st_size, stat.st_mtime_ns)
            if self._rejected.get(key, -math.inf) > now:
                continue
            try:
                generation = self._fetch({"db": name, "size": stat.st_size, "sha256": None}, now, origin="disk")
            except Rejected as exc:
                self._refuse(key, name, str(exc), now)
                continue
            self._swap(generation)
            return True
        return False

    def _refuse(self, key: tuple, db: str | None, reason: str, now: float, level: int = logging.WARNING) -> bool:
        """Note a rejection, logging it once per window; the current snapshot stays. Always False (no swap)."""
        if self._rejected.get(key, -math.inf) > now:
            return False
        self._rejected = {k: until for k, until in self._rejected.items() if until > now}
        self._rejected[key] = now + REJECT_WINDOW
        self._last_rejection = {"at": _iso(now), "db": db, "reason": reason}
        log.log(level, "snapshot.rejected db=%s reason=%s", db or "-", reason)
        return False

    def _fetch(self, pointer: dict, now: float, origin: str = "pointer") -> Generation:
        """A local copy of the database `pointer` names, checked against it (a file found on disk, against the
        counts in its own meta table: `sha256` None)."""
        source = self.store.snapshots_dir / pointer["db"]
        if not source.is_file():
            raise Rejected(f"the database it names, {pointer['db']}, is missing.")
        target = self._cache_path(pointer["db"])
        try:
            digest, size = self._offload(copy_measured, source, target, pointer["size"])
            if size != pointer["size"]:
                raise Rejected(f"the database is {size} bytes; the pointer says {pointer['size']}.")
            if pointer["sha256"] is not None and digest != pointer["sha256"]:
                raise Rejected("the database's sha256 differs from the pointer's.")
            return self._open(target, pointer["db"], origin, {**pointer, "sha256": digest}, now)
        except BaseException:
            target.unlink(missing_ok=True)
            raise

    def _use_fallback(self, now: float) -> bool:
        """No snapshot at all: build one here (local development, a first boot before the indexer ran)."""
        if self.fallback is None or now - self._fallback_failed_at < REJECT_WINDOW:
            return False
        target = self._cache_path("in-process.db")
        try:
            self.fallback(target)
            generation = self._open(target, "in-process", "fallback", None, now)
        except Exception as exc:
            target.unlink(missing_ok=True)
            self._fallback_failed_at = now
            self._last_rejection = {"at": _iso(now), "db": "in-process", "reason": f"the fallback build failed: {exc}"}
            log.warning("snapshot.fallback_failed error=%s", exc)
            return False
        self._swap(generation)
        return True

    def _open(self, path: Path, name: str, origin: str, pointer: dict | None, now: float) -> Generation:
        """Open a local copy and check it is the snapshot it claims to be; Rejected when not."""
        try:
            db = open_immutable(path)
        except sqlite3.Error as exc:
            raise Rejected(f"the database cannot be opened ({exc}).") from None
        try:
            meta = self._offload(verified_meta, path, pointer and pointer.get("counts"), origin == "disk")
        except BaseException:
            db.close()
            raise
        # Before the swap makes it current: the connection the first request will get reads the common pages now.
        warmed = warm_up(db)
        self._numbers += 1
        return Generation(number=self._numbers, path=path, name=name, origin=origin,
                          sha256=pointer["sha256"] if pointer else None, built_at=meta["built_at"],
                          counts=meta["counts"], since=now, warm_up=warmed.as_dict(), idle=[db])

    def _cache_path(self, name: str) -> Path:
        self._numbers += 1
        return self.cache_dir / f"{os.getpid()}-{self._numbers}-{name}"

    # -- swapping, connections and status ------------------------------------------------------------------

    def _swap(self, generation: Generation) -> None:
        self._generations.swap(generation)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection to the current snapshot, kept valid until the block ends (even across a swap)."""
        with self._generations.connection() as db:
            yield db

    def close(self) -> None:
        """Retire the current snapshot (its copy is deleted once no query uses it)."""
        self._generations.swap(None)

    def sha256(self) -> str | None:
        """The sha256 of the snapshot in use (None: none, or one built in process), without the rest of status()."""
        current = self._current
        return current.sha256 if current else None

    def status(self) -> dict:
        """Which snapshot is in use, when the pointer was last looked at, and the last rejection."""
        current = self._current
        return {
            "pointer": pointer_name(SCHEMA),
            "snapshot": current.name if current else None,
            "origin": current.origin if current else None,
            "sha256": current.sha256 if current else None,
            "built_at": current.built_at if current else None,
            "counts": dict(current.counts) if current else None,
            "in_use_since": _iso(current.since) if current else None,
            "warm_up": dict(current.warm_up) if current and current.warm_up else None,
            "last_checked": _iso(self._last_checked) if self._last_checked is not None else None,
            "last_rejection": dict(self._last_rejection) if self._last_rejection else None,
            "pointer_problem": dict(self._pointer_problem) if self._pointer_problem else None,
        }


def _call(fn: Callable, *args):
    return fn(*args)


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
