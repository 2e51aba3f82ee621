"""The snapshot a process serves and the ones it is retiring, with the connections lent out on each.

A swap retires the old snapshot; queries already running finish on it, and the last one out closes it and deletes
its local copy.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from rlx.snapshot.schema import open_immutable

log = logging.getLogger("rlx.snapshot")

POOL_SIZE = 8  # idle connections kept per snapshot


class SnapshotUnavailable(RuntimeError):
    """No snapshot is loaded (none published, and no fallback build worked)."""


@dataclass
class Generation:
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


class Generations:
    """The current generation, swapped whole; connections borrowed from it stay valid until given back."""

    def __init__(self):
        self._lock = threading.Lock()  # the current generation and every generation's users and idle pool
        self.current: Generation | None = None

    def swap(self, generation: Generation | None) -> None:
        """Serve `generation` from now on (None: nothing); the old one closes once its last query is done."""
        with self._lock:
            old, self.current = self.current, generation
            if old is not None:
                old.retired = True
            done = old is not None and old.users == 0
        if done:
            old.close()
        if generation is not None:
            log.info("snapshot.swapped db=%s origin=%s envs=%s tasks=%s", generation.name, generation.origin,
                     generation.counts.get("envs"), generation.counts.get("tasks"))

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            generation = self.current
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
