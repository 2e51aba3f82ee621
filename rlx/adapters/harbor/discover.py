"""Finding a Harbor dataset's tasks: a task is wherever a task.toml (or an older Terminal-Bench task.yaml) is.

Most repositories are listed whole in one recursive listing. A repository too big for that (thousands of tasks
that each ship a whole app) is walked instead: one level at a time, a batched paths-info call says which folders
hold a task.toml, and the folders inside a task are never listed (the file viewer lists them when opened).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

from rlx.adapters.harbor.layout import TASK_FILES
from rlx.sources.base import FileEntry

# A recursive listing is abandoned for the walk when it runs past either bound: a repository that big (thousands
# of tasks shipping whole apps) publishes its task list sooner by walking than by listing every file first.
LISTING_BUDGET_S = 8.0
MAX_LISTED_FILES = 50_000
MAX_DEPTH = 8
MAX_FOLDERS_PER_LEVEL = 3_000  # non-task folders the walk descends into per level
MAX_TASKS = 20_000
PATHS_PER_CALL = 500  # paths in one paths-info call
PATHS_INFO_PARALLEL = 4  # paths-info calls in flight at once

# The files the index reads (or must know exist) in each task folder, relative to the task.
KNOWN_FILES = (
    "task.toml", "instruction.md", "README.md", "environment/Dockerfile", "environment/docker-compose.yaml",
    "environment/docker-compose.yml", "tests/test.sh", "tests/test.bat", "solution/solve.sh", "solution/solve.bat",
    "task.yaml", "run-tests.sh", "Dockerfile", "docker-compose.yaml", "docker-compose.yml", "solution.sh",
    "solution.yaml",  # Terminal-Bench 1
)
KNOWN_FOLDERS = ("environment", "tests", "solution", "steps")


@dataclass
class Discovery:
    task_dirs: list[str]  # folder of each task, relative to the repository root ("" for a one-task repository)
    files: dict[str, list[FileEntry]]  # per task folder: its files, paths relative to the task
    walked: bool = False
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    looked_at: int = 0  # files listed, or folders walked: what "no task here" is said of


class ListingTooSlow(Exception):
    pass


def discover(env, on_found: Callable[[int], None] | None = None, on_tasks: Callable[[list[str], bool], None] | None = None,
             budget_s: float | None = None) -> Discovery:
    """Every task folder of `env`, by one recursive listing, or by walking when that is too slow or too big.

    `on_found(n)` hears the running count; `on_tasks(task_dirs, walked)` hears the whole list as soon as it is known,
    before the walk looks up each task's files, so the list can be published at once.
    """
    try:
        entries = _list_everything(env, LISTING_BUDGET_S if budget_s is None else budget_s)
    except ListingTooSlow:
        return walk(env, on_found, on_tasks)
    discovery = from_listing(entries)
    if on_found:
        on_found(len(discovery.task_dirs))
    if on_tasks:
        on_tasks(discovery.task_dirs, False)
    return discovery


def _list_everything(env, budget_s: float) -> list[FileEntry]:
    deadline = time.monotonic() + budget_s
    entries = []
    for entry in env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                      token=env.token):
        entries.append(entry)
        if len(entries) > MAX_LISTED_FILES or time.monotonic() > deadline:
            raise ListingTooSlow()
    return entries


def from_listing(entries: list[FileEntry]) -> Discovery:
    """Task folders and their files from a full listing.

    A task inside another task's folder is a task of its own: it owns its files, and the outer task keeps only
    the folder (see `nested_tasks`), so the outer task never serves the inner one's solution or tests.
    """
    task_dirs = sorted({
        e.path.rsplit("/", 1)[0] if "/" in e.path else ""
        for e in entries
        if not e.is_dir and e.path.rsplit("/", 1)[-1] in TASK_FILES and e.path.count("/") <= MAX_DEPTH
    })
    truncated = len(task_dirs) > MAX_TASKS
    task_dirs = task_dirs[:MAX_TASKS]
    return Discovery(task_dirs=task_dirs, files=_group_by_task(entries, task_dirs), truncated=truncated,
                     looked_at=sum(not e.is_dir for e in entries))


def walk(env, on_found: Callable[[int], None] | None = None,
         on_tasks: Callable[[list[str], bool], None] | None = None) -> Discovery:
    """Level by level: list a level, ask which of its folders hold a task.toml, descend into the others only."""
    source = env.source
    kw = {"revision": env.revision, "token": env.token}
    task_dirs: list[str] = []
    notes: list[str] = []
    if source.paths_info(env.repo_type, env.id, list(TASK_FILES), **kw):
        task_dirs = [""]
        level: list[str] = []
    else:
        level = [""]
    depth, looked_at = 0, 1
    while level and depth < MAX_DEPTH and len(task_dirs) < MAX_TASKS:
        children = [
            e.path
            for folder in level
            for e in source.list_tree(env.repo_type, env.id, path=folder, recursive=False, **kw)
            if e.is_dir and not e.path.rsplit("/", 1)[-1].startswith(".")
        ]
        hits = {e.path.rsplit("/", 1)[0] for e in source.paths_info(
            env.repo_type, env.id, [f"{c}/{name}" for c in children for name in TASK_FILES], **kw) if not e.is_dir}
        found = [c for c in children if c in hits]
        task_dirs.extend(found)
        looked_at += len(children)
        if on_found:
            on_found(len(task_dirs))
        level = [c for c in children if c not in hits]
        if len(level) > MAX_FOLDERS_PER_LEVEL:
            notes.append(f"{len(level):,} folders without a task.toml at depth {depth + 1}: only the first "
                         f"{MAX_FOLDERS_PER_LEVEL:,} were looked into.")
            level = level[:MAX_FOLDERS_PER_LEVEL]
        depth += 1
    task_dirs = sorted(task_dirs)[:MAX_TASKS]
    if on_tasks:
        on_tasks(task_dirs, True)
    return Discovery(task_dirs=task_dirs, files=_known_files(env, task_dirs), walked=True, notes=notes,
                     looked_at=looked_at)


def _known_files(env, task_dirs: list[str]) -> dict[str, list[FileEntry]]:
    """Which of the files the index reads exist in each task, by paths-info alone (no folder is listed)."""
    wanted = [_join(d, name) for d in task_dirs for name in (*KNOWN_FILES, *KNOWN_FOLDERS)]
    chunks = [wanted[i:i + PATHS_PER_CALL] for i in range(0, len(wanted), PATHS_PER_CALL)]

    def look_up(chunk):
        return env.source.paths_info(env.repo_type, env.id, chunk, revision=env.revision, token=env.token)

    with ThreadPoolExecutor(PATHS_INFO_PARALLEL) as pool:
        found = [entry for batch in pool.map(look_up, chunks) for entry in batch]
    return _group_by_task(found, task_dirs)


def _group_by_task(entries, task_dirs: list[str]) -> dict[str, list[FileEntry]]:
    """Each entry under the task folder that holds it, its path made relative to that task."""
    tasks = set(task_dirs)
    files: dict[str, list[FileEntry]] = {d: [] for d in task_dirs}
    for entry in entries:
        owner = _owner(entry.path, tasks)
        if owner is not None and entry.path != owner:
            rel = entry.path[len(owner) + 1:] if owner else entry.path
            files[owner].append(FileEntry(path=rel, type=entry.type, size=entry.size, oid=entry.oid))
    return files


def nested_tasks(task_dirs: list[str]) -> dict[str, dict[str, str]]:
    """For each task holding others in its folder: {folder relative to it: that task's folder}, nearest only."""
    tasks = set(task_dirs)
    nested: dict[str, dict[str, str]] = {}
    for folder in task_dirs:
        owner = _owner(folder, tasks) if folder else None
        if owner is not None:
            rel = folder[len(owner) + 1:] if owner else folder
            nested.setdefault(owner, {})[rel] = folder
    return nested


def _owner(path: str, tasks: set[str]) -> str | None:
    """The task folder holding `path`: its nearest ancestor that is a task (walking up, not scanning tasks)."""
    folder = path
    while "/" in folder:
        folder = folder.rsplit("/", 1)[0]
        if folder in tasks:
            return folder
    return "" if "" in tasks else None


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
