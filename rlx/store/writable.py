"""Whether the store can take a write, and which errors mean it cannot: a full disk (or quota), a read-only one,
or SQLite saying so. Such an error is the server's state, not a bug: the pages say "try again later" (503), a run
ends "infrastructure error", and /readyz reports the store (rlx/web/health/checks.py)."""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from pathlib import Path

STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}
_SQLITE_STORE_CODES = {8, 10, 13}  # SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
PROBE_BYTES = 4096  # a real block: creating an empty file still works on a full disk


class StoreUnwritable(RuntimeError):
    """The store takes no writes; the message is one sentence, without the store's path."""


def is_store_full(exc: BaseException) -> bool:
    """An error that says the store's disk cannot take a write."""
    if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
        return True
    if isinstance(exc, sqlite3.OperationalError):  # a full tmpfs reads as an I/O error to SQLite (its WAL's mmap)
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in _SQLITE_STORE_CODES
        text = str(exc).lower()
        return any(words in text for words in ("disk is full", "disk i/o error", "readonly", "read-only"))
    return False


def check_writable(root: Path) -> None:
    """Write and remove a block in the store; raise StoreUnwritable when it cannot be written."""
    try:
        fd, name = tempfile.mkstemp(dir=root, prefix=".writable-", suffix=".probe")
    except OSError as exc:
        raise StoreUnwritable(_why(exc)) from None
    try:
        os.write(fd, b"\0" * PROBE_BYTES)
        os.fsync(fd)
    except OSError as exc:
        raise StoreUnwritable(_why(exc)) from None
    finally:
        os.close(fd)
        Path(name).unlink(missing_ok=True)


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "The store is not writable: its disk is full."
    if exc.errno == errno.EROFS:
        return "The store is not writable: its disk is read-only."
    return f"The store is not writable ({errno.errorcode.get(exc.errno or 0, 'error')})."
