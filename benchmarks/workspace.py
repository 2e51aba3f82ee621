"""The benchmark's working folder: the synthetic catalog (source tree and stored indexes), the snapshot built from
it and published into the store, the cache folder the app copies it to. Everything lives under one temporary
folder, removed at the end of the run."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scripts import synth_catalog


@dataclass
class Workspace:
    root: Path

    @property
    def source(self) -> Path:  # RLX_SOURCE: the FolderSource tree
        return self.root / "source"

    @property
    def storage(self) -> Path:  # STORAGE_DIR: indexes, packs, snapshots, the embedded Redis
        return self.root / "store"

    @property
    def cache(self) -> Path:  # RLX_CACHE_DIR: where each app process copies the snapshot
        return self.root / "cache"

    @property
    def local_db(self) -> Path:  # the snapshot as built on local disk; Datasette serves this same file
        return self.root / "catalog.db"

    def env(self) -> dict[str, str]:
        """The app's settings for this workspace (REDIS_URL left unset: `rlx serve` starts its own Redis)."""
        return {"STORAGE_DIR": str(self.storage), "RLX_CACHE_DIR": str(self.cache), "RLX_SOURCE": str(self.source)}


def create(keep_at: Path | None = None) -> Workspace:
    root = Path(keep_at) if keep_at else Path(tempfile.mkdtemp(prefix="rlx-bench-"))
    if root.exists() and any(root.iterdir()):
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    return Workspace(root)


def generate(ws: Workspace) -> dict:
    """The synthetic catalog, written into the workspace (source/ and store/indexes/)."""
    return synth_catalog.generate(ws.root)


def remove(ws: Workspace) -> None:
    shutil.rmtree(ws.root, ignore_errors=True)
