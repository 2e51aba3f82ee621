"""The indexer's scratch space (RLX_CACHE_DIR/indexer): one folder per snapshot build, removed when it ends.

A build that is killed (SIGKILL, the job's time limit, a machine stop) cannot clean up after itself, so each build
starts by removing what dead builds left. A build holds a lock on its own `<folder>.lock` for as long as it runs:
the kernel drops it when the process dies, however it dies, so a lock nobody holds marks a dead build (a pid could
be reused, or belong to another container). Locks are made and tested only under the guard lock, so a starting
build is never mistaken for a dead one; anything else in the space belongs to no live build and goes too.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

log = logging.getLogger("rlx.indexer")

GUARD = "scratch.guard"


@contextmanager
def build_folder(cache_dir: Path) -> Iterator[Path]:
    """A fresh folder for one build, locked while the block runs and removed after it."""
    space = Path(cache_dir) / "indexer"
    space.mkdir(parents=True, exist_ok=True)
    name = f"build-{os.getpid()}-{secrets.token_hex(4)}"
    with open(space / GUARD, "ab") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        removed = remove_abandoned(space)
        lock = open(space / f"{name}.lock", "wb")
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = space / name
        folder.mkdir()
    if removed:
        log.info("indexer.scratch_cleaned removed=%s", ",".join(removed))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        (space / f"{name}.lock").unlink(missing_ok=True)
        lock.close()


def remove_abandoned(space: Path) -> list[str]:
    """Remove every entry of the scratch space that no live build owns; the names removed. Call under the guard."""
    entries = list(space.iterdir())
    alive = {p.name[:-len(".lock")] for p in entries if p.name.endswith(".lock") and _held(p)}
    keep = {GUARD, *alive, *(f"{name}.lock" for name in alive)}
    removed = []
    for path in entries:
        if path.name in keep:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path.name)
    return sorted(removed)


def _held(lock_path: Path) -> bool:
    """Whether a live process holds this lock (taking it for a moment when nobody does)."""
    try:
        with open(lock_path, "rb") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(fh, fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False
