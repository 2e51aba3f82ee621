"""Where each kind of file lives under STORAGE_DIR. One place, so no module builds a path by hand."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


KEY_SEPARATOR = "+"  # never in a Hub id ([A-Za-z0-9._-]), so "a__b/c" and "a/b__c" cannot share a file


def _repo_key(repo_id: str) -> str:
    """"org/name" -> "org+name": one folder level, and one name per id (the old "__" joined two ids into one)."""
    return repo_id.replace("/", KEY_SEPARATOR, 1)


def repo_id_of_key(key: str) -> str:
    """The id a file name was made from (the inverse of _repo_key)."""
    return key.replace(KEY_SEPARATOR, "/", 1)


@dataclass(frozen=True)
class Store:
    root: Path

    @property
    def indexes_dir(self) -> Path:
        return self.root / "indexes"

    def index_path(self, repo_id: str) -> Path:
        return self.indexes_dir / self.index_name(repo_id)

    @staticmethod
    def index_name(repo_id: str) -> str:
        """The index file's name in indexes_dir. A snapshot build joins it to the folder as text: making a Path
        and its text per dataset cost more than the file's fingerprint (a stat) does."""
        return f"{_repo_key(repo_id)}.json.gz"

    @property
    def snapshot_rows_path(self) -> Path:
        """Every dataset's snapshot rows, derived from its index, in one SQLite file (rlx/snapshot/rows_cache.py)."""
        return self.indexes_dir / "snapshot-rows.sqlite3"

    def partial_index_path(self, repo_id: str) -> Path:
        """An index still being built (or whose build failed): kept apart, so it never replaces a complete one."""
        return self.indexes_dir / f"{_repo_key(repo_id)}.partial.json.gz"

    def pack_path(self, repo_id: str) -> Path:
        return self.packs_dir / f"{_repo_key(repo_id)}.pack.gz"

    @property
    def packs_dir(self) -> Path:
        return self.root / "packs"

    @property
    def atomic_write_folders(self) -> tuple[Path, ...]:
        """The folders files are written to temp-then-rename: where a killed writer's temp file can be left."""
        return (self.root, self.indexes_dir, self.packs_dir, self.snapshots_dir, self.settings_path.parent,
                self.previews_dir)

    def rows_cache_dir(self, repo_id: str, revision: str | None) -> Path:
        """Local copies of a rows dataset's data files (downloaded, or gunzipped) for one revision."""
        return self.root / "rows-cache" / _repo_key(repo_id) / (revision or "main")[:64]

    @property
    def previews_dir(self) -> Path:
        return self.root / "previews"

    def preview_path(self, env_id: str, version: str) -> Path:
        """An environment's link-preview picture, one file per version of what it draws."""
        space = env_id.startswith("space:")
        name = ("s-" if space else "d-") + _repo_key(env_id[len("space:"):] if space else env_id)
        return self.previews_dir / f"{name}.{version}.png"

    @property
    def snapshots_dir(self) -> Path:
        return self.root / "snapshots"

    @property
    def listing_path(self) -> Path:
        return self.root / "listing.json.gz"

    @property
    def indexer_state_path(self) -> Path:
        return self.root / "indexer-state.json"

    @property
    def settings_path(self) -> Path:
        return self.root / "admin" / "settings.json"

    @property
    def redis_dir(self) -> Path:
        return self.root / "redis"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"
