"""Reading the published snapshot: follow the pointer, copy the database to local disk, verify it, swap it in.

One SnapshotReader per process. SQLite never opens a file on the store (a bucket mount may be slow or change under
it): the database is copied to the cache folder first and opened read-only and immutable. A swap retires the old
snapshot; queries already running finish on it, and the last one out closes it and deletes its copy.

When the pointer cannot be followed (garbage, a database that fails its checks), every process serves the newest
database on disk that verifies by itself, other than the one the pointer names: a choice made from the files
alone, so all processes make the same one. Only with none on disk does a process build its own (the fallback).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from rlx.snapshot.schema import SCHEMA, open_immutable, pointer_name, read_meta
from rlx.snapshot.warm import warm_up
from rlx.store import Store

log = logging.getLogger("rlx.snapshot")

REJECT_WINDOW = 600.0  # seconds before a rejected pointer or file is looked at again
POOL_SIZE = 8  # idle connections kept per snapshot
DISK_CANDIDATES = 10  # newest databases on disk tried when the pointer is unusable (publish keeps five)
_DB_NAME = re.compile(r"catalog-[A-Za-z0-9._-]{1,120}\.db")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CACHED = re.compile(r"\.?(\d+)-\d+-")  # "[.]<pid>-<generation>-<name>": which process a cached copy belongs to


class SnapshotUnavailable(RuntimeError):
    """No snapshot is loaded (none published, and no fallback build worked)."""


class Rejected(Exception):
    """A pointer or the database it names is unusable; the message says why, in one sentence."""


@dataclass
class _Generation:
    number: int
    path: Path  # the local copy
    name: str
    origin: str  # "pointer", "disk" (the newest good file, the pointer being unusable) or "fallback"
    sha256: str | None
    built_at: str
    counts: dict
    since: float
    warm_up: dict | None = None  # what the warm-up of its first connection did (rlx/snapshot/warm.py)
    idle: list[sqlite3.Connection] = field(default_factory=list)
    users: int = 0
    retired: bool = False
    closed: bool = False

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for db in self.idle:
            db.close()
        self.idle.clear()
        self.path.unlink(missing_ok=True)


class SnapshotReader:
    """The snapshot this process answers from. Use `with reader.connection() as db:` for every query."""

    def __init__(self, store: Store, cache_dir: Path, fallback: Callable[[Path], object] | None = None,
                 clock: Callable[[], float] = time.time):
        self.store = store
        self.cache_dir = Path(cache_dir) / "snapshots"
        self.fallback = fallback
        self.clock = clock
        self._lock = threading.Lock()  # the current generation and every generation's users and idle pool
        self._check_lock = threading.Lock()  # one check at a time: two would copy the same file twice
        self._current: _Generation | None = None
        self._numbers = 0
        self._rejected: dict[tuple, float] = {}  # what was rejected -> when it may be tried again
        self._fallback_failed_at = -math.inf
        self._last_checked: float | None = None
        self._last_rejection: dict | None = None
        self._pointer_problem: dict | None = None  # why the pointer is not followed now, with the db it names
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        _remove_orphans(self.cache_dir)

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
            return self._refuse_pointer(key, _named_db(raw), str(exc), now)
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
            names = sorted((p.name for p in folder.iterdir() if _DB_NAME.fullmatch(p.name)), reverse=True)
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

    def _fetch(self, pointer: dict, now: float, origin: str = "pointer") -> _Generation:
        """A local copy of the database `pointer` names, checked against it (a file found on disk, against the
        counts in its own meta table: `sha256` None)."""
        source = self.store.snapshots_dir / pointer["db"]
        if not source.is_file():
            raise Rejected(f"the database it names, {pointer['db']}, is missing.")
        target = self._cache_path(pointer["db"])
        try:
            digest, size = _copy_measured(source, target, pointer["size"])
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

    def _open(self, path: Path, name: str, origin: str, pointer: dict | None, now: float) -> _Generation:
        """Open a local copy and check it is the snapshot it claims to be; Rejected when not."""
        try:
            db = open_immutable(path)
        except sqlite3.Error as exc:
            raise Rejected(f"the database cannot be opened ({exc}).") from None
        try:
            meta = _verified_meta(path, pointer and pointer.get("counts"), own_counts=origin == "disk")
        except BaseException:
            db.close()
            raise
        # Before the swap makes it current: the connection the first request will get reads the common pages now.
        warmed = warm_up(db)
        self._numbers += 1
        return _Generation(number=self._numbers, path=path, name=name, origin=origin,
                           sha256=pointer["sha256"] if pointer else None, built_at=meta["built_at"],
                           counts=meta["counts"], since=now, warm_up=warmed.as_dict(), idle=[db])

    def _cache_path(self, name: str) -> Path:
        self._numbers += 1
        return self.cache_dir / f"{os.getpid()}-{self._numbers}-{name}"

    # -- swapping and connections ---------------------------------------------------------------------------

    def _swap(self, generation: _Generation) -> None:
        with self._lock:
            old, self._current = self._current, generation
            if old is not None:
                old.retired = True
            done = old is not None and old.users == 0
        if done:
            old.close()
        log.info("snapshot.swapped db=%s origin=%s envs=%s tasks=%s", generation.name, generation.origin,
                 generation.counts.get("envs"), generation.counts.get("tasks"))

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection to the current snapshot, kept valid until the block ends (even across a swap)."""
        with self._lock:
            generation = self._current
            if generation is None:
                raise SnapshotUnavailable("no catalog snapshot is loaded yet.")
            generation.users += 1
            db = generation.idle.pop() if generation.idle else None
        try:
            if db is None:
                db = open_immutable(generation.path)
            yield db
        finally:
            with self._lock:
                generation.users -= 1
                keep = db is not None and not generation.retired and len(generation.idle) < POOL_SIZE
                if keep:
                    generation.idle.append(db)
                finished = generation.retired and generation.users == 0
            if db is not None and not keep:
                db.close()
            if finished:
                generation.close()

    def close(self) -> None:
        """Retire the current snapshot (its copy is deleted once no query uses it)."""
        with self._lock:
            old, self._current = self._current, None
            if old is not None:
                old.retired = True
            done = old is not None and old.users == 0
        if done:
            old.close()

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


def parse_pointer(raw: bytes) -> dict:
    """The pointer's fields, checked; Rejected with the reason when anything is off."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise Rejected("the pointer is not JSON.") from None
    if not isinstance(value, dict):
        raise Rejected("the pointer is not a JSON object.")
    name = value.get("db")
    if not isinstance(name, str) or ".." in name or "/" in name or "\\" in name or not _DB_NAME.fullmatch(name):
        raise Rejected(f"the pointer names {name!r}, which is not a snapshot file name.")
    if not isinstance(value.get("sha256"), str) or not _SHA256.fullmatch(value["sha256"]):
        raise Rejected("the pointer's sha256 is not a hex digest.")
    if not _count(value.get("size")) or value["size"] == 0:
        raise Rejected("the pointer's size is not a positive number of bytes.")
    if value.get("schema") != SCHEMA:
        raise Rejected(f"the pointer is for schema {value.get('schema')!r}, not {SCHEMA}.")
    counts = value.get("counts")
    if not isinstance(counts, dict) or not all(_count(counts.get(k)) for k in ("envs", "tasks")):
        raise Rejected("the pointer's counts are missing or malformed.")
    return {**value, "built_at": str(value.get("built_at") or "")}


def _named_db(raw: bytes) -> str | None:
    """The database a rejected pointer names, if it names one: it is not trusted as a fallback either."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return value["db"] if isinstance(value, dict) and isinstance(value.get("db"), str) else None


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _verified_meta(path: Path, counts: dict | None, own_counts: bool = False) -> dict:
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


def _copy_measured(source: Path, target: Path, expected_size: int) -> tuple[str, int]:
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


def _remove_orphans(folder: Path) -> None:
    """Delete copies left by processes that are gone (a crash skips the last-one-out cleanup)."""
    for path in folder.iterdir():
        match = _CACHED.match(path.name)
        if match and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
