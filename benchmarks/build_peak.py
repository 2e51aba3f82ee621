"""`python -m benchmarks.build_peak ROOT OUT`: list the FolderSource tree ROOT/source and build the snapshot of it
into OUT from ROOT/store's indexes, as the indexer's snapshot job does, in a process of its own; print one JSON line
with the build's figures and this process's peak RSS.

A process of its own, because ru_maxrss of a forked child starts at the parent's size, and the benchmark's parent
holds a lot; VmHWM read here is this interpreter's own peak (listing, records and build together, as in the job).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def _kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def main(root: Path, out: Path) -> dict:
    from rlx.catalog import fetch_listing
    from rlx.snapshot.build import build_snapshot
    from rlx.snapshot.refresh import CompleteIndexes
    from rlx.sources.folder import FolderSource
    from rlx.store import Store

    started = time.perf_counter()
    records = fetch_listing(FolderSource(root / "source"))
    listing_s = time.perf_counter() - started
    before_build_kb = _kb("VmHWM")
    built = build_snapshot(records, CompleteIndexes(Store(root / "store")), out, built_at="2026-11-30T00:00:00Z")
    # A large build's search tables come from a second process (rlx/snapshot/search_process.py): its own peak is
    # added, as if both peaked at once.
    helper_mb = (built.get("search_process") or {}).get("peak_rss", 0) / 1024 / 1024
    return {"seconds": built["seconds"], "size": built["size"], "counts": built["counts"],
            "phases": built.get("timings", {}), "cpu_phases": built.get("cpu_timings", {}),
            "listing_seconds": listing_s, "search_process_mb": helper_mb,
            "peak_rss_mb": _kb("VmHWM") / 1024 + helper_mb, "peak_before_build_mb": before_build_kb / 1024}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))), flush=True)
