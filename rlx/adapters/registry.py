"""The registry and the adapter choice: built-in adapters register through the same door a new format would
(rlx/adapters/builtin.py, run when the package is imported), so this module imports no adapter of its own and an
adapter may look another up by key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rlx.adapters.contract import Adapter

if TYPE_CHECKING:
    from rlx.adapters.env import Env

_ADAPTERS: dict[str, Adapter] = {}
SURE = 0.9  # at or above this score an adapter is trusted without a closer look


def register(adapter: Adapter) -> Adapter:
    if not adapter.key:
        raise ValueError("an adapter needs a key")
    _ADAPTERS[adapter.key] = adapter
    return adapter


def unregister(key: str) -> None:
    _ADAPTERS.pop(key, None)


def get(key: str) -> Adapter | None:
    return _ADAPTERS.get(key)


def all_adapters() -> list[Adapter]:
    return list(_ADAPTERS.values())


def _ranked(record) -> list[tuple[float, Adapter]]:
    """Every adapter with its score for a repository's record (tags, card, file names), best first."""
    return sorted(((a.score(record), a) for a in all_adapters()), key=lambda sa: -sa[0])


def pick(env: "Env") -> Adapter | None:
    """The adapter the dataset's environment.yaml calls for, when it has one naming a framework we read; else the
    surest adapter that confirms: best score first; below SURE, it must confirm with a closer look."""
    from rlx.adapters.manifest import adapter_key, read_manifest

    declared = get(adapter_key(read_manifest(env)) or "")
    if declared is not None:
        return declared
    for score, adapter in _ranked(env.record):
        if score <= 0:
            break
        if (score >= SURE and not adapter.always_confirm) or adapter.confirm(env):
            return adapter
    return None


def may_read(record) -> bool:
    """Whether any adapter might read this repository (worth listing and a closer look)."""
    return any(score > 0 for score, _ in _ranked(record))


def sure_from_record(record) -> Adapter | None:
    """The adapter sure of a repository from its record alone, without a call: what the snapshot builder may
    assume before it has built anything. One that always confirms (a format known by its layout) never is."""
    ranked = _ranked(record)
    if ranked and ranked[0][0] >= SURE and not ranked[0][1].always_confirm:
        return ranked[0][1]
    return None


def space_adapter() -> Adapter:
    """The adapter of Spaces (OpenEnv servers and any other Space): one for every Space, so never scored."""
    global _SPACE
    if _SPACE is None:
        from rlx.adapters.openenv import SpaceAdapter

        _SPACE = SpaceAdapter()
    return _SPACE


_SPACE: Adapter | None = None


def choose(env: "Env") -> Adapter | None:
    """The one adapter choice for a dataset, used by pages, the index job, the indexer and the catalog: the
    adapter stored with its index for this revision, else `pick` (which may take a closer look)."""
    from rlx.adapters.indexes import load_index_at

    index = load_index_at(env.store, env.id, env.revision)
    if index is not None:
        stored = get(index.adapter)
        if stored is not None:
            return stored
    return pick(env)
