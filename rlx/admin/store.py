"""The admin's writes: settings.json changed under a lock and replaced atomically (temp then rename, so every
explorer process reads the old file or the new one, never half of one), and one line per change in audit.jsonl."""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from rlx.store.atomic_files import write_json
from rlx.store.settings import SettingsError, parse_settings
from rlx.store.settings_file import SettingsFile

MAX_AUDIT_SHOWN = 200
MAX_AUDIT_TAIL_BYTES = 512 * 1024


@contextmanager
def _locked(path: Path):
    """One admin change at a time, across processes (two admins saving at once both keep their change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def update_settings(path: Path, change: Callable[[dict], None]) -> dict:
    """Apply `change` to the settings as stored and write them back atomically; returns the new settings.

    The change starts from the file when it reads well, else from the last good settings (a broken file is
    repaired by the next save, keeping what was last good), and what is written is checked the way every reader
    checks it, so the admin never saves a file the explorer would refuse (SettingsError instead)."""
    with _locked(path):
        if path.is_dir():
            raise SettingsError("A folder sits where the settings file goes, so no save can replace it; remove "
                                f"the folder {path.name} in the store's admin folder, then save again.")
        data = SettingsFile(path).editable()
        change(data)
        parse_settings(data)
        write_json(path, data)
    return data


def audit_path(settings_path: Path) -> Path:
    return settings_path.parent / "audit.jsonl"


def record(settings_path: Path, who: str, action: str, **detail) -> None:
    """Append one line; a single O_APPEND write under the lock, so lines never interleave."""
    line = json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "who": who, "action": action,
                       **detail}, ensure_ascii=False) + "\n"
    path = audit_path(settings_path)
    with _locked(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


def recent(settings_path: Path, limit: int = MAX_AUDIT_SHOWN) -> list[dict]:
    """The newest entries first, read from the file's tail only."""
    path = audit_path(settings_path)
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - MAX_AUDIT_TAIL_BYTES))
            lines = fh.read().decode(errors="replace").splitlines()
    except OSError:
        return []
    entries = []
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # the first line of a tail read may be cut
        if isinstance(entry, dict):
            entries.append(entry)
        if len(entries) >= limit:
            break
    return entries
