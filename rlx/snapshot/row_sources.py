"""Where a snapshot build reads each dataset's rows: the stored indexes, through the rows cache kept beside them
(rlx/snapshot/rows_cache.py: an unchanged dataset is never derived twice), or any mapping of Index objects (tests, a
fallback build)."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator, Mapping

from rlx.adapters.contract import Index
from rlx.adapters.indexes import read_index
from rlx.snapshot import rows_cache
from rlx.snapshot.dataset_rows import DatasetRows, index_fingerprint, rows_of_index
from rlx.store import Store, repo_id_of_key

log = logging.getLogger("rlx.snapshot")


def rows_source(indexes: Mapping):
    """What the build reads each dataset's rows through: a StoredIndexes as it is, any other mapping of indexes
    (tests, a fallback) through _IndexMapping."""
    return indexes if isinstance(indexes, StoredIndexes) else _IndexMapping(indexes)


class _IndexMapping:
    """Indexes given as objects: rows derived from each, never copied from a previous snapshot."""

    def __init__(self, indexes: Mapping):
        self.indexes = indexes

    def fingerprint(self, env_id: str) -> None:
        return None

    def dataset_rows(self, env_id: str, fingerprint: None) -> DatasetRows | None:
        index = self.indexes.get(env_id)
        return rows_of_index(index, None) if index is not None else None


class StoredIndexes(Mapping):
    """The indexes on disk, read one at a time as the build asks for them (a broken one counts as absent)."""

    def __init__(self, store: Store):
        self.store = store
        self._folder = str(store.indexes_dir)
        self._db: sqlite3.Connection | None = None

    def __getitem__(self, env_id: str) -> Index:
        if env_id.startswith("space:"):
            raise KeyError(env_id)
        try:
            index = read_index(self.store, env_id)
        except Exception as exc:  # one unreadable file must not stop the whole catalog
            log.warning("snapshot.index_unreadable env=%s error=%s", env_id, exc)
            index = None
        if index is None:
            raise KeyError(env_id)
        return index

    def fingerprint(self, env_id: str) -> str | None:
        if env_id.startswith("space:"):
            return None
        return index_fingerprint(os.path.join(self._folder, self.store.index_name(env_id)))

    @property
    def cache_path(self):
        return self.store.snapshot_rows_path

    def _cache(self) -> sqlite3.Connection | None:
        """The rows cache, opened once; None when it cannot be (the rows are then derived from each index)."""
        if self._db is None:
            try:
                self.store.indexes_dir.mkdir(parents=True, exist_ok=True)
                self._db = rows_cache.connect(self.cache_path)
            except (OSError, sqlite3.Error) as exc:
                log.warning("snapshot.rows_cache_unusable error=%s", exc)
                return None
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def cached_rows(self, env_id: str, fingerprint: str) -> DatasetRows | None:
        db = self._cache()
        if db is None:
            return None
        try:
            return rows_cache.read_rows(db, env_id, fingerprint)
        except sqlite3.DatabaseError as exc:
            self.cache_failed(exc)
            return None

    def derive(self, env_id: str, fingerprint: str) -> DatasetRows | None:
        """The dataset's rows derived from its index (and kept in the cache for the next build); None without a
        readable index."""
        try:
            index = self[env_id]
        except KeyError:
            return None
        rows = rows_of_index(index, fingerprint)
        db = self._cache()
        if db is not None:
            try:
                rows_cache.write_rows(db, env_id, rows, lambda: self.fingerprint(env_id))
            except sqlite3.DatabaseError as exc:  # a full disk, a damaged file: only the shortcut is lost
                self.cache_failed(exc)
        return rows

    def cache_failed(self, exc: Exception) -> None:
        """Let the cache go after `exc`; a file found damaged (not busy, not full) is set aside, to be made again."""
        log.warning("snapshot.rows_cache_failed error=%s", exc)
        self.close()
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            rows_cache.set_aside(self.cache_path, exc)

    def dataset_rows(self, env_id: str, fingerprint: str | None) -> DatasetRows | None:
        """The dataset's snapshot rows: from the rows cache while it holds them for this index (`fingerprint`),
        else derived from the index. None without a readable index."""
        if fingerprint is None:
            return None
        rows = self.cached_rows(env_id, fingerprint) or self.derive(env_id, fingerprint)
        return rows if rows is not None and self.usable(rows) else None

    def bring_up_to_date(self, env_ids: list[str]) -> set[str] | None:
        """Derive into the cache every dataset of `env_ids` whose entry is missing or stale; the datasets the cache
        now holds rows of, or None when it cannot be used (then each dataset's rows are read one by one)."""
        db = self._cache()
        if db is None:
            return None
        try:
            stamps = rows_cache.stamps(db)
        except sqlite3.DatabaseError as exc:
            self.cache_failed(exc)
            return None
        held = set()
        for env_id in env_ids:
            fingerprint = self.fingerprint(env_id)
            if fingerprint is None:
                continue
            if stamps.get(env_id) != fingerprint:
                if self.derive(env_id, fingerprint) is None:
                    continue  # no readable index: no rows, as a build from the indexes would find
                if self._db is None:  # the cache failed as it was written
                    return None
            held.add(env_id)
        return held

    def refresh(self, env_id: str) -> None:
        """Derive the dataset's rows now, from its index just rebuilt (the indexer calls this): the snapshot build
        that follows then copies them from the cache, not from the whole index."""
        fingerprint = self.fingerprint(env_id)
        if fingerprint is not None:
            self.derive(env_id, fingerprint)

    def usable(self, rows: DatasetRows) -> bool:
        """Whether a stored index may be shown (CompleteIndexes: complete ones only)."""
        return True

    def __iter__(self) -> Iterator[str]:
        suffix = ".json.gz"
        for path in sorted(self.store.indexes_dir.glob(f"*{suffix}")):
            yield repo_id_of_key(path.name[: -len(suffix)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


class CachedRows:
    """A build from nothing's datasets as the rows cache held them (task_tables.py copies their tasks): each one's
    fingerprint and rows without their tasks."""

    def __init__(self, rows: dict[str, DatasetRows]):
        self.rows = rows

    def fingerprint(self, env_id: str) -> str | None:
        rows = self.rows.get(env_id)
        return rows.fingerprint if rows is not None else None

    def dataset_rows(self, env_id: str, fingerprint: str | None) -> DatasetRows | None:
        return self.rows.get(env_id)
