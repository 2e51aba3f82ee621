"""A standalone archive of task folders (tasks.tar.gz, bundle.zip at any path) read as rows: one row per task
folder it holds, so the packed-Harbor processor reads each exactly as it reads a task packed in a parquet cell.

The archive is unpacked once with rlx/adapters/archives.py, whose rules (size, member count, ratio, links,
devices, escapes, duplicates) refuse a hostile one; a refused archive is a file problem named with its rule.
Each task folder (a folder holding task.toml, or an older task.yaml; a task nested inside another task's folder
stays part of it) becomes {"task_id": its path, "task_archive": its files as a plain tar}.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
from pathlib import Path

from rlx.adapters.archives import MAX_PACKED_BYTES, ArchiveRefused, unpack
from rlx.adapters.harbor.layout import TASK_FILES

MAX_TASKS = 2000


class ArchiveUnreadable(ValueError):
    """The archive was refused or is too large; the sentence names why."""


def archive_rows(path: Path) -> list[dict]:
    if path.stat().st_size > MAX_PACKED_BYTES:
        raise ArchiveUnreadable(f"{path.name} is over {MAX_PACKED_BYTES // 2**20} MB, more than this explorer "
                                f"unpacks.")
    try:
        unpacked = unpack(path.read_bytes())
    except ArchiveRefused as exc:
        raise ArchiveUnreadable(f"{path.name} was refused ({exc.rule}): {exc}") from None
    tasks = task_folders(unpacked.files)
    return [{"task_id": folder or path.name, "task_archive": _tar_of(unpacked.files, folder)}
            for folder in tasks[:MAX_TASKS]]


def task_folders(files: dict[str, bytes]) -> list[str]:
    """Folders holding a task file, outermost first; a task inside another task's folder is part of it."""
    found = sorted({posixpath.dirname(p) for p in files if posixpath.basename(p) in TASK_FILES},
                   key=lambda f: (f.count("/"), f))
    kept: list[str] = []
    for folder in found:
        if not any(folder == k or folder.startswith(k + "/") or k == "" for k in kept):
            kept.append(folder)
    return sorted(kept)


def _tar_of(files: dict[str, bytes], folder: str) -> bytes:
    """The folder's files as an uncompressed tar, under the folder's own name (the packed reader strips it)."""
    top = posixpath.basename(folder) or "task"
    prefix = f"{folder}/" if folder else ""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sorted(p for p in files if p.startswith(prefix)):
            info = tarfile.TarInfo(f"{top}/{path[len(prefix):]}")
            info.size = len(files[path])
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(files[path]))
    return out.getvalue()
