"""(a) Building the snapshot from the synthetic catalog: seconds and file size, as the indexer builds it.

The listing is read once (from the FolderSource tree: its cost is the source's, not the build's); then the build
runs several times from the same records and stored indexes, and the median is reported with each phase's share.
The last build stays in the workspace and is published into the store, for the app and Datasette to serve.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Callable

from benchmarks.stats import median
from benchmarks.workspace import Workspace
from rlx.catalog import fetch_listing
from rlx.snapshot.build import build_snapshot
from rlx.snapshot.publish import publish
from rlx.sources.folder import FolderSource
from rlx.store import Store

try:  # what the indexer builds from: complete indexes only
    from rlx.snapshot.indexer import CompleteIndexes as Indexes
except ImportError:  # pragma: no cover - an older tree
    from rlx.snapshot.build import StoredIndexes as Indexes

TARGET_SECONDS, TARGET_BYTES = 1.0, 43_000_000  # the original system at this size


def measure(ws: Workspace, runs: int) -> dict:
    started = time.perf_counter()
    records = fetch_listing(FolderSource(ws.source))
    listing_s = time.perf_counter() - started
    store = Store(ws.storage)
    builds = []
    for i in range(runs):
        out = ws.local_db if i == runs - 1 else ws.root / f"build-{i}.db"
        builds.append(build_snapshot(records, Indexes(store), out, built_at="2026-11-30T00:00:00Z"))
        if out != ws.local_db:
            out.unlink(missing_ok=True)
    started = time.perf_counter()
    published = publish(ws.local_db, store)
    publish_s = time.perf_counter() - started
    seconds = median([b["seconds"] for b in builds])
    size = builds[-1]["size"]
    phases = {name: median([b["timings"].get(name, 0.0) for b in builds]) for name in builds[-1]["timings"]}
    return {
        "runs": runs,
        "seconds": seconds,
        "seconds_all": [b["seconds"] for b in builds],
        "size": size,
        "counts": builds[-1]["counts"],
        "phases": phases,
        "listing_seconds": listing_s,
        "publish_seconds": publish_s,
        "published": published["db"],
        "tables": table_sizes(ws.local_db),
        "met": {"seconds": seconds <= TARGET_SECONDS, "size": size <= TARGET_BYTES},
    }


def table_sizes(path: Path) -> list[tuple[str, int]]:
    """Bytes per table and index (FTS shadow tables folded into their FTS table), largest first."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError:  # SQLite built without dbstat
        return []
    finally:
        db.close()
    folded: dict[str, int] = {}
    for name, size in rows:
        for fts in ("envs_fts", "tasks_fts"):
            if name.startswith(fts + "_"):
                name = fts
        folded[name] = folded.get(name, 0) + size
    return sorted(folded.items(), key=lambda kv: -kv[1])


def profile_target(ws: Workspace) -> Callable[[], dict]:
    """One build, for the profiler."""
    records = fetch_listing(FolderSource(ws.source))
    store = Store(ws.storage)
    return lambda: build_snapshot(records, Indexes(store), ws.root / "profiled.db")
