"""Where a snapshot build reads each dataset's rows: the stored indexes, through the row file kept beside each (so
an unchanged dataset is never derived twice), or any mapping of Index objects (tests, a fallback build)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from rlx.adapters.contract import Index
from rlx.adapters.indexes import read_index
from rlx.snapshot.dataset_rows import SUFFIX, DatasetRows, index_fingerprint, read_row_file, rows_of_index, write_row_file
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

    def _row_file(self, env_id: str) -> Path:
        index_path = self.store.index_path(env_id)
        return index_path.with_name(index_path.name[: -len(".json.gz")] + SUFFIX)

    def dataset_rows(self, env_id: str, fingerprint: str | None) -> DatasetRows | None:
        """The dataset's snapshot rows: from its row file while that matches the index (`fingerprint`), else
        derived from the index (and the row file written for the next build). None without a readable index."""
        if fingerprint is None:
            return None
        row_file = self._row_file(env_id)
        rows = read_row_file(row_file, fingerprint)
        if rows is None:
            try:
                index = self[env_id]
            except KeyError:
                return None
            rows = rows_of_index(index, fingerprint)
            write_row_file(row_file, rows)
        return rows if self.usable(rows) else None

    def refresh(self, env_id: str) -> None:
        """Derive the dataset's row file now, from its index just rebuilt (the indexer calls this): the snapshot
        build that follows then reads the small file, not the whole index."""
        self.dataset_rows(env_id, self.fingerprint(env_id))

    def usable(self, rows: DatasetRows) -> bool:
        """Whether a stored index may be shown (CompleteIndexes: complete ones only)."""
        return True

    def __iter__(self) -> Iterator[str]:
        suffix = ".json.gz"
        for path in sorted(self.store.indexes_dir.glob(f"*{suffix}")):
            yield repo_id_of_key(path.name[: -len(suffix)])

    def __len__(self) -> int:
        return sum(1 for _ in self)
