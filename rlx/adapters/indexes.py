"""Indexes and packs in the store: written atomically, read through a small per-process cache.

An index is one JSON file per environment (rows + overview numbers); a pack holds the texts its task pages show,
de-duplicated across tasks, so a task page never waits on the source. Both name the revision they were built
from and the adapter's index version, so a stale one is noticed and rebuilt.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from pathlib import Path

from rlx.adapters.contract import Index, TaskRow
from rlx.store import Store, read_json, write_json

_CACHE_SIZE = 16
_cache: OrderedDict[tuple[str, int, int], object] = OrderedDict()
_lock = threading.Lock()


def save_index(store: Store, index: Index) -> None:
    """A complete index replaces the last complete one; a partial one is written beside it, so a rebuild that
    fails half-way (the Hub down, a killed worker) never takes away the tasks that were already served."""
    if index.complete:
        write_json(store.index_path(index.env_id), dataclasses.asdict(index), compress=True)
        store.partial_index_path(index.env_id).unlink(missing_ok=True)
    else:
        write_json(store.partial_index_path(index.env_id), dataclasses.asdict(index), compress=True)


def load_index(store: Store, env_id: str) -> Index | None:
    """The last complete index, built into objects once per version of the file (pages read it on every request)."""
    return _cached(store.index_path(env_id), _index_from_json)


def load_partial_index(store: Store, env_id: str) -> Index | None:
    """The index a build is writing (or a failed build left), or None."""
    return _cached(store.partial_index_path(env_id), _index_from_json)


def load_index_at(store: Store, env_id: str, revision: str | None) -> Index | None:
    """The index of `revision`: the complete one if it is of that revision, else the partial one if it is."""
    for index in (load_index(store, env_id), load_partial_index(store, env_id)):
        if index is not None and index.revision == revision:
            return index
    return None


def read_index(store: Store, env_id: str) -> Index | None:
    """The stored index read straight from disk, bypassing the cache (a snapshot build reads each index once)."""
    data = read_json(store.index_path(env_id))
    return None if data is None else _index_from_json(data)


def _index_from_json(data: dict) -> Index:
    return Index(**{**data, "rows": [TaskRow(**row) for row in data["rows"]]})


def save_pack(store: Store, env_id: str, pack: dict) -> None:
    write_json(store.pack_path(env_id), pack, compress=True)


def load_pack(store: Store, env_id: str) -> dict | None:
    return _cached(store.pack_path(env_id))


def _cached(path: Path, build=None):
    """Parsed JSON for `path` (made into objects by `build`), cached by (path, mtime, size): a rewrite is seen at
    once, a reread costs nothing. Callers must not change what they get."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    data = read_json(path)
    if build is not None:
        data = build(data)
    with _lock:
        for old in [k for k in _cache if k[0] == key[0]]:
            del _cache[old]
        _cache[key] = data
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return data
