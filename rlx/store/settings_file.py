"""Reading the admin settings file defensively, once per version of it, in every process that needs it.

A request only stats the file: it is read again when its (modification time, size, inode) changes (every save is
a new file, by rename). A read opens it with O_NONBLOCK and checks the open file itself (fstat): only a regular
file of at most MAX_BYTES is read, so a FIFO, a device or a huge file put in its place never blocks a request.
Anything wrong (not JSON, too deep, a field of the wrong type: rlx/store/settings.py) refuses the whole file: the
process keeps its last good settings, logs one line and says why in `problem` (the admin's pages show it).

The last good file is also copied beside it (settings.last-good.json), so a process that starts while the file is
broken, and the admin's next save, begin from the last good settings too, not from nothing.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from rlx.store.atomic_files import write_atomic
from rlx.store.settings import AdminSettings, SettingsError, parse_settings

log = logging.getLogger("rlx.settings")
MAX_BYTES = 1 << 20  # the biggest file an admin's lists could need is a few hundred KB


@dataclass(frozen=True)
class Refusal:
    reason: str
    at: str  # when this process refused it (UTC)


def last_good_path(path: Path) -> Path:
    return path.with_name(path.stem + ".last-good.json")


def read_settings_bytes(path: Path) -> bytes:
    """The file's bytes; raises SettingsError when it is not a regular file of at most MAX_BYTES, FileNotFoundError
    when it is absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SettingsError(f"it cannot be opened ({exc.strerror}).") from None
    try:
        info = os.fstat(fd)  # of the file opened, not of whatever the name points at a moment later
        if not stat.S_ISREG(info.st_mode):
            raise SettingsError("it is not a regular file (a FIFO, a device or a folder sits in its place).")
        if info.st_size > MAX_BYTES:
            raise SettingsError(f"it is {info.st_size:,} bytes, over the cap of {MAX_BYTES:,}.")
        chunks, total = [], 0
        while total <= MAX_BYTES:
            chunk = os.read(fd, min(1 << 16, MAX_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_BYTES:  # it grew while being read
            raise SettingsError(f"it is over the cap of {MAX_BYTES:,} bytes.")
        return b"".join(chunks)
    finally:
        os.close(fd)


def load_settings(path: Path) -> tuple[AdminSettings, dict]:
    """The settings in the file and its parsed JSON; raises SettingsError (or FileNotFoundError)."""
    data = read_settings_bytes(path)
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError("it is not UTF-8 text.") from None
    except RecursionError:
        raise SettingsError("it nests far deeper than the format does.") from None
    except ValueError as exc:
        raise SettingsError(f"it is not valid JSON ({str(exc)[:120]}).") from None
    return parse_settings(raw), raw


class SettingsFile:
    """One process's view of the settings file: `get()` answers from memory until the file changes."""

    def __init__(self, path: Path):
        self.path = path
        self._seen: tuple | None = None
        self._settings: AdminSettings | None = None  # the last good settings this process read
        self._raw: dict | None = None
        self.problem: Refusal | None = None
        self._lock = threading.Lock()

    def get(self) -> AdminSettings:
        seen = self._version()
        if seen != self._seen:
            with self._lock:
                if seen != self._seen:
                    self._refresh(seen)
                    self._seen = seen
        return self._settings if self._settings is not None else AdminSettings()

    def editable(self) -> dict:
        """A copy of the settings to change and save: the file as it is when it reads well, else the last good."""
        self.get()
        return copy.deepcopy(self._raw) if self._raw is not None else {}

    def _version(self) -> tuple | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return ("error", exc.errno)
        return (info.st_mtime_ns, info.st_size, info.st_ino, stat.S_IFMT(info.st_mode))

    def _refresh(self, seen) -> None:
        if seen is None:  # no file: the defaults, and nothing to complain about
            self._settings, self._raw, self.problem = AdminSettings(), {}, None
            return
        try:
            self._settings, self._raw = load_settings(self.path)
            self.problem = None
            self._keep_copy()
        except FileNotFoundError:  # removed between the stat and the open: the next request sees it gone
            self._seen = None
        except SettingsError as exc:
            self.problem = Refusal(str(exc), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            log.warning("settings.refused path=%s reason=%s (keeping the last good settings)", self.path, exc)
            if self._settings is None:
                self._settings, self._raw = self._last_good()

    def _keep_copy(self) -> None:
        """Copy the file as last good, when the copy differs (most reads find it the same)."""
        target = last_good_path(self.path)
        data = json.dumps(self._raw, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()
        try:
            if target.exists() and target.read_bytes() == data:
                return
            write_atomic(target, data)
        except OSError as exc:  # a read-only store: the settings still apply, only the copy is missing
            log.warning("settings.last_good_not_written path=%s reason=%s", target, exc)

    def _last_good(self) -> tuple[AdminSettings, dict]:
        try:
            return load_settings(last_good_path(self.path))
        except (SettingsError, OSError):
            return AdminSettings(), {}
