"""Writing files so that a reader never sees half of one: temp file in the same folder, fsync, then rename.

A writer killed before its rename leaves its temp file, named `.<name>.<pid>@<host>.<random>.tmp`; later,
`remove_abandoned_temps` removes it once its process is gone (same host) or it has not changed for an hour (a
writer on another host sharing the bucket, whose pid means nothing here).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

STALE_TEMP_S = 3600  # a temp file untouched this long belongs to a writer that died
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:64] or "host"
_TEMP = re.compile(r"\..+?\.(?:(\d+)@([A-Za-z0-9-]+)\.)?[A-Za-z0-9_]+\.tmp")


@contextmanager
def atomic_file(path: Path, durable: bool = True):
    """A binary file to write; on leaving the block it is flushed to disk and renamed over `path`. On an error
    the temporary file is removed and `path` is untouched. `durable=False` skips the fsync: for a file that is
    only a cache (checked when read), where waiting on the disk buys nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}@{_HOST}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    with atomic_file(path, durable) as fh:
        fh.write(data)


def copy_atomic(source: Path, target: Path, durable: bool = True) -> None:
    with atomic_file(target, durable) as out, open(source, "rb") as src:
        shutil.copyfileobj(src, out, 1 << 20)


def write_json(path: Path, value, compress: bool = False) -> None:
    data = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    write_atomic(path, gzip.compress(data, compresslevel=6, mtime=0) if compress else data)


def read_json(path: Path, default=None):
    """The JSON in `path` (gzip detected by magic bytes), or `default` when the file is absent."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return default
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def remove_abandoned_temps(folder: Path, now: float | None = None) -> list[str]:
    """Remove the temp files in `folder` whose writer is gone; the names removed."""
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = _TEMP.fullmatch(entry.name)
        if not match or not entry.is_file(follow_symlinks=False):
            continue
        pid, host = match.groups()
        try:
            dead = (host == _HOST and not process_alive(int(pid))) or now - entry.stat().st_mtime > STALE_TEMP_S
            if dead:
                os.unlink(entry.path)
                removed.append(entry.name)
        except FileNotFoundError:
            pass  # its writer renamed it, or another cleaner got there first
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
