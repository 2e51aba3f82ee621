"""The Kind taxonomy: the one word a card shows for what an environment is."""

from __future__ import annotations

from dataclasses import dataclass

from rlx.sources.base import RepoRecord


@dataclass(frozen=True)
class Kind:
    key: str
    label: str


KINDS = {
    k.key: k
    for k in (
        Kind("openenv-space", "OpenEnv Space"),
        Kind("other-space", "Space"),
        Kind("harbor", "Harbor"),
        Kind("task-folders", "Task folders"),
        Kind("verifiers", "Verifiers"),
        Kind("nemo-gym", "NeMo Gym"),
        Kind("openenv-data", "OpenEnv dataset"),
        Kind("verl", "verl"),
        Kind("rows", "Rows"),
    )
}

_ROW_FORMATS = (("verifiers", "verifiers"), ("nemo-gym", "nemo-gym"), ("verl", "verl"), ("skyrl", "verl"),
                ("openenv", "openenv-data"))


def kind_of(record: RepoRecord, found: str | bool | None = None) -> str:
    """The kind key for a listing record. `found` is what an index found: the kind its adapter read (a key of
    KINDS), False when the index found no task of its format, None when the dataset is not indexed."""
    if isinstance(found, str):
        if found in KINDS:
            return found
        found = None
    has_task_folders = found
    tags = set(record.tags)
    if record.repo_type == "space":
        return "openenv-space" if "openenv" in tags and record.sdk == "docker" else "other-space"
    if has_task_folders or (has_task_folders is None and "harbor" in tags):
        return "harbor"
    for tag, kind in _ROW_FORMATS:
        if tag in tags:
            return kind
    return "rows"
