"""The first request on a freshly opened snapshot, per query of the search mix: with the reader's warm-up
(rlx/snapshot/warm.py) and without it, beside the same query answered again on the same connection.

Each sample opens a new connection to the snapshot file as the reader does (an empty page cache, the schema not
yet parsed), warms it or not, then answers the query twice in this process through the app's own search functions
(benchmarks/inprocess.py), timing each. The file itself is in the OS page cache, as it is right after the build
wrote it or the reader copied it: dropping that cache needs root, so a cold disk is not measured. The wrk figures
of section n warm every path before they time it; these are the first requests they leave out.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from benchmarks.inprocess import InProcessApp
from benchmarks.markdown import num, table
from benchmarks.stats import median
from benchmarks.workspace import Workspace
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


def fresh_worker(ws: Workspace, path: str, repeats: int, boot: bool) -> dict:
    """A new web process's first request for `path`, median of `repeats` (ms of CPU time, this process's threads
    together; wall ms beside): each sample builds the app anew over an empty cache folder, as a new gunicorn worker
    starts. With `boot`, the snapshot is opened first as the worker does before it accepts (app_catalog.open_snapshot,
    timed apart), so the request only borrows a connection; without, the request opens it (copy, sha256, checks)."""
    from rlx import create_app
    from rlx.config import Config
    from rlx.snapshot import app_catalog

    samples: dict[str, list[float]] = {"boot_cpu_ms": [], "request_cpu_ms": [], "request_wall_ms": []}
    for i in range(repeats):
        cache = ws.root / f"fresh-cache-{i}"
        shutil.rmtree(cache, ignore_errors=True)
        app = create_app(Config.from_env({**ws.env(), "RLX_CACHE_DIR": str(cache)}))
        client = app.test_client()
        started = time.process_time()
        if boot:
            app_catalog.open_snapshot(app)
        samples["boot_cpu_ms"].append((time.process_time() - started) * 1000)
        started, wall = time.process_time(), time.perf_counter()
        status = client.get(path).status_code
        samples["request_cpu_ms"].append((time.process_time() - started) * 1000)
        samples["request_wall_ms"].append((time.perf_counter() - wall) * 1000)
        assert status == 200, f"{path} answered {status}"
        app.extensions["rlx.snapshot"].close()
        shutil.rmtree(cache, ignore_errors=True)
    return {"path": path, "boot": boot, "samples": repeats, **{k: median(v) for k, v in samples.items()}}


def _timed(app: InProcessApp, path: str, db) -> float:
    started = time.perf_counter_ns()
    app.on_connection(path, db)
    return (time.perf_counter_ns() - started) / 1e6


def render(scaling: dict) -> str | None:
    """One table: each query's first answer at each scale measured, unwarmed / warmed / again."""

    scales = [(key, x["first_request"]) for key, x in scaling.items() if x.get("first_request")]
    if not scales:
        return None
    keys = list(scales[0][1]["queries"])
    header = ["query"] + [f"{key}: first answer unwarmed / warmed / again, ms (KB read unwarmed / warmed)"
                          for key, _ in scales]
    rows = [[k] + [_cell(f["queries"][k]) for _, f in scales if k in f["queries"]] for k in keys]
    warm = "; ".join(f"{key} {num(f['warm_up']['ms'])} ms, {f['warm_up']['kb']:,.0f} KB read"
                     for key, f in scales)
    return ("\n**The first request on a freshly opened snapshot** (`benchmarks/first_request.py`): a new connection "
            "as the reader opens it, the query answered in process, unwarmed and after the reader's warm-up "
            "(rlx/snapshot/warm.py), then again on the same connection; median of the samples. The file is in the "
            "OS page cache (as after the build or the reader's copy; dropping it needs root). The warm-up itself: "
            f"{warm}.\n\n" + table(header, rows))


def _cell(q: dict) -> str:
    return (f"{num(q['cold_ms'])} / {num(q['warmed_ms'])} / {num(q['again_ms'])} "
            f"({q['cold_kb']:,.0f} / {q['warmed_kb']:,.0f})")


if __name__ == "__main__":
    # python -m benchmarks.first_request WORKSPACE [REPEATS]: one scale, as JSON;
    # python -m benchmarks.first_request --fresh-worker WORKSPACE [REPEATS]: a new process's first request,
    # with the snapshot opened at boot and without.
    import json
    import sys

    from benchmarks.search import query_mix

    args = sys.argv[1:]
    fresh = args[:1] == ["--fresh-worker"]
    workspace = Workspace(Path(args[1 if fresh else 0]))
    repeats = int(args[-1]) if len(args) > 1 + fresh else 5
    if fresh:
        print(json.dumps([fresh_worker(workspace, "/api/search?q=code", repeats, boot) for boot in (False, True)],
                         indent=1))
    else:
        print(json.dumps(measure(InProcessApp(workspace), workspace.local_db, query_mix(None), repeats), indent=1))
