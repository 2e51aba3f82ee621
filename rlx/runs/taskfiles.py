"""A task's files on the worker's disk, for Harbor to read: copied from wherever the environment lives (a local
folder or the Hub), at the revision the run was asked for, into a scratch folder the job removes afterwards.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from rlx.adapters.indexes import load_pack
from rlx.store import Store

MAX_FILES = 2000
MAX_BYTES = 256 * 1024 * 1024  # a whole task
MAX_FILE = 64 * 1024 * 1024


class TaskFilesError(Exception):
    """The task cannot be copied; the message is one sentence."""


def task_dir_in_repo(store: Store, env_id: str, ref: str) -> str:
    """The task's folder inside its repository, from the stored pack ("" for a one-task repository)."""
    pack = load_pack(store, env_id)
    entry = (pack or {}).get("tasks", {}).get(ref)
    if entry is None:
        raise TaskFilesError(f"{ref} is not a task of {env_id} (or {env_id} is not indexed yet).")
    return entry.get("dir") or ""


def copy_task(source, store: Store, env_id: str, ref: str, revision: str | None, target: Path,
              token: str | None = None) -> Path:
    folder = task_dir_in_repo(store, env_id, ref)
    total = 0
    count = 0
    for entry in source.list_tree("dataset", env_id, path=folder, recursive=True, revision=revision, token=token):
        if entry.is_dir:
            continue
        rel = PurePosixPath(entry.path[len(folder) + 1:] if folder else entry.path)
        if rel.is_absolute() or ".." in rel.parts:
            continue
        count += 1
        total += entry.size
        if count > MAX_FILES or total > MAX_BYTES:
            raise TaskFilesError(f"The task is larger than this sandbox copies ({MAX_FILES} files, "
                                 f"{MAX_BYTES // (1024 * 1024)} MiB).")
        data = source.read_file("dataset", env_id, entry.path, revision=revision, token=token, max_bytes=MAX_FILE)
        path = target.joinpath(*rel.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if rel.parts[0] in ("tests", "solution") or rel.suffix == ".sh":
            path.chmod(0o755)
    if not (target / "task.toml").is_file():
        raise TaskFilesError("The task has no task.toml, so Harbor cannot run it.")
    return target
