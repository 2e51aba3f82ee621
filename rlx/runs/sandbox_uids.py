"""A host uid of its own for each sandbox, leased from a range no account uses.

RLIMIT_NPROC caps the processes of a real uid, machine-wide. When every sandbox ran as `nobody`, one run's fork
bomb took every process `nobody` may have, and no other run's sandbox could start (nor fork) until it ended. With
a uid per sandbox, its cap is its own.

A lease is an flock on a file named after the uid in LEASE_DIR: the kernel drops it when the holder closes it or
dies, so a crashed worker never keeps a uid, and the workers of one host (separate processes) never share one. A
uid that still has processes (a sandbox command outliving its worker) is skipped: they would count against the cap.
Leasing needs root (setpriv then switches to the uid); an unprivileged worker's sandboxes run as its own uid.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

UIDS = range(1_800_000_000, 1_800_004_096)  # above the ids of accounts and of /etc/subuid ranges
LEASE_DIR = Path(tempfile.gettempdir()) / "rlx-sandbox-uids"


class NoFreeUid(RuntimeError):
    """Every uid of the range is leased (or still has processes)."""


class UidLease:
    """One uid, held until `release` (or until this process ends)."""

    def __init__(self, uid: int, fd: int):
        self.uid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file drops its flock


def lease_uid(folder: Path = LEASE_DIR, uids: range = UIDS) -> UidLease:
    """The lowest uid of `uids` that no other sandbox holds and that runs no process."""
    _private_folder(folder)
    busy = _uids_with_processes()
    for uid in uids:
        if uid in busy:
            continue
        fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)  # not inherited
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise NoFreeUid(f"all {len(uids)} sandbox uids are in use on this host.")


def _private_folder(folder: Path) -> None:
    # Only this user may create lease files: another user's files there could hold every uid.
    folder.mkdir(mode=0o700, exist_ok=True)
    stat = folder.lstat()
    if not folder.is_dir() or folder.is_symlink() or stat.st_uid != os.geteuid() or stat.st_mode & 0o077:
        raise NoFreeUid(f"{folder} is not a private folder of this user: sandbox uids cannot be leased there.")


def _uids_with_processes() -> set[int]:
    uids = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                uids.add(entry.stat().st_uid)  # a /proc/<pid> folder belongs to the process's effective uid
            except FileNotFoundError:
                continue
    return uids
