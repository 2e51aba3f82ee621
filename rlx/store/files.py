"""Writing files so that a reader never sees half of one: temp file in the same folder, fsync, then rename."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_file(path: Path):
    """A binary file to write; on leaving the block it is flushed to disk and renamed over `path`. On an error
    the temporary file is removed and `path` is untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes) -> None:
    with atomic_file(path) as fh:
        fh.write(data)


def copy_atomic(source: Path, target: Path) -> None:
    with atomic_file(target) as out, open(source, "rb") as src:
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
