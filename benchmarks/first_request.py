"""The first request on a freshly opened snapshot, per query of the search mix: with the reader's warm-up
(rlx/snapshot/warm.py) and without it, beside the same query answered again on the same connection.

Each sample opens a new connection to the snapshot file as the reader does (an empty page cache, the schema not
yet parsed), warms it or not, then answers the query twice in this process through the app's own search functions
(benchmarks/inprocess.py), timing each. The file itself is in the OS page cache, as it is right after the build
wrote it or the reader copied it: dropping that cache needs root, so a cold disk is not measured. The wrk figures
of section n warm every path before they time it; these are the first requests they leave out.
"""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.inprocess import InProcessApp
from benchmarks.stats import median
from rlx.snapshot.schema import open_immutable
from rlx.snapshot.warm import warm_up


def _rchar() -> int:
    """Bytes this process has read through read() and pread() so far: SQLite's page reads among them."""
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(app: InProcessApp, db_path: Path, mix: list, repeats: int) -> dict:
    """Per query, the median of `repeats` samples: the first answer without and with the warm-up, then the
    second answer (ms), and the KB each first answer read; and what the warm-up itself cost."""
    out: dict = {"queries": {}, "warm_up": {}}
    warm_ms, warm_kb = [], []
    spare = open_immutable(db_path)
    try:  # each path answered once first, so its Python side (imports, routes, caches) is not in the samples
        for query in mix:
            app.on_connection(query.app, spare)
    finally:
        spare.close()
    for query in mix:
        cold, warmed, again, cold_kb, warmed_kb = [], [], [], [], []
        for _ in range(repeats):
            for warm in (False, True):
                db = open_immutable(db_path)
                try:
                    if warm:
                        before = _rchar()
                        done = warm_up(db)
                        warm_kb.append((_rchar() - before) / 1024)
                        warm_ms.append(done.ms)
                    before = _rchar()
                    first = _timed(app, query.app, db)
                    (warmed_kb if warm else cold_kb).append((_rchar() - before) / 1024)
                    (warmed if warm else cold).append(first)
                    again.append(_timed(app, query.app, db))
                finally:
                    db.close()
        out["queries"][query.key] = {"cold_ms": median(cold), "warmed_ms": median(warmed), "again_ms": median(again),
                                     "cold_kb": median(cold_kb), "warmed_kb": median(warmed_kb)}
    out["warm_up"] = {"ms": median(warm_ms), "kb": median(warm_kb), "samples": len(warm_ms)}
    return out


def _timed(app: InProcessApp, path: str, db) -> float:
    started = time.perf_counter_ns()
    app.on_connection(path, db)
    return (time.perf_counter_ns() - started) / 1e6


def render(scaling: dict) -> str | None:
    """One table: each query's first answer at each scale measured, unwarmed / warmed / again."""
    from benchmarks.report import _n, _table

    scales = [(key, x["first_request"]) for key, x in scaling.items() if x.get("first_request")]
    if not scales:
        return None
    keys = list(scales[0][1]["queries"])
    header = ["query"] + [f"{key}: first answer unwarmed / warmed / again, ms (KB read unwarmed / warmed)"
                          for key, _ in scales]
    rows = [[k] + [_cell(f["queries"][k]) for _, f in scales if k in f["queries"]] for k in keys]
    warm = "; ".join(f"{key} {_n(f['warm_up']['ms'])} ms, {f['warm_up']['kb']:,.0f} KB read"
                     for key, f in scales)
    return ("\n**The first request on a freshly opened snapshot** (`benchmarks/first_request.py`): a new connection "
            "as the reader opens it, the query answered in process, unwarmed and after the reader's warm-up "
            "(rlx/snapshot/warm.py), then again on the same connection; median of the samples. The file is in the "
            "OS page cache (as after the build or the reader's copy; dropping it needs root). The warm-up itself: "
            f"{warm}.\n\n" + _table(header, rows))


def _cell(q: dict) -> str:
    from benchmarks.report import _n

    return (f"{_n(q['cold_ms'])} / {_n(q['warmed_ms'])} / {_n(q['again_ms'])} "
            f"({q['cold_kb']:,.0f} / {q['warmed_kb']:,.0f})")


if __name__ == "__main__":  # python -m benchmarks.first_request WORKSPACE [REPEATS]: one scale, as JSON
    import json
    import sys

    from benchmarks.search import query_mix
    from benchmarks.workspace import Workspace

    workspace = Workspace(Path(sys.argv[1]))
    print(json.dumps(measure(InProcessApp(workspace), workspace.local_db, query_mix(None),
                             int(sys.argv[2]) if len(sys.argv) > 2 else 5), indent=1))
