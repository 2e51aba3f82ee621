"""(o) Real datasets' shapes: SWE-bench's (2,300 rows, 100 KB gold patches, 4,000-character issues) and 100,000
prompts in 100 row groups (benchmarks/real_rows_data.py), each indexed, served and put in a snapshot.

Each dataset is indexed as the indexing job does it (`repo_info`, `choose`, the chosen adapter's `build_index`)
from a FolderSource tree, in a process of its own that reports its peak RSS (VmHWM, as build_peak.py). Then
`rlx serve` (gunicorn, 2 gevent workers) answers its environment page and task pages for rows drawn across the
whole dataset, one connection, wrk; the SWE-shaped task pages are checked for the gold patch (never shown). The
snapshot's size per 1,000 tasks: a snapshot of each dataset alone, less a snapshot of an empty listing, per
1,000 tasks it holds.

`python -m benchmarks.real_rows [--keep DIR] [--seconds S]` runs it alone and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import real_rows_data as data
from benchmarks import wrk
from benchmarks.markdown import met, table
from benchmarks.servers import app_server, get
from benchmarks.workspace import Workspace, create, remove

TARGETS = {"index_seconds": 10.0, "page_p50_ms": 30.0, "index_rss_mb": 300.0}
SAMPLED_ROWS = 200
BUILT_AT = "2026-11-30T00:00:00Z"

_INDEX_ONE = """
import json, sys, time
from pathlib import Path
from rlx.adapters import Env, choose
from rlx.sources.folder import FolderSource
from rlx.store import Store
started = time.perf_counter()
source = FolderSource(sys.argv[1])
env = Env(source.repo_info("dataset", sys.argv[3]), source, Store(Path(sys.argv[2])))
adapter = choose(env)
index = adapter.build_index(env)
peak_kb = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": time.perf_counter() - started, "adapter": adapter.key,
                  "processor": index.summary.get("processor"), "rows": index.summary.get("rows_total"),
                  "listed": len(index.rows), "rss_mb": int(peak_kb) / 1024}))
"""


def measure(ws: Workspace, seconds: float = 3.0) -> dict:
    """Figures per dataset, in a folder of ws of their own (the synthetic catalog's source is left as it is)."""
    own = Workspace(ws.root / "real-rows")
    started = time.perf_counter()
    data.write_all(own.source)
    out: dict = {"write_seconds": round(time.perf_counter() - started, 1), "targets": TARGETS, "datasets": {}}
    for env_id, total in ((data.SWE_ID, data.SWE_ROWS), (data.PROMPTS_ID, data.PROMPTS_ROWS)):
        out["datasets"][env_id] = _index(own, env_id) | {"file_mb": _file_mb(own, env_id)}
    with app_server(own, log_name="real-rows-app") as url:
        for env_id, total in ((data.SWE_ID, data.SWE_ROWS), (data.PROMPTS_ID, data.PROMPTS_ROWS)):
            out["datasets"][env_id] |= _pages(url, env_id, total, seconds)
    out["datasets"] = {k: v | _snapshot_share(own, k, v["listed"]) for k, v in out["datasets"].items()}
    out["met"] = {env_id: {"index": d["index_seconds"] <= TARGETS["index_seconds"],
                           "pages": max(d["env_p50_ms"], d["task_p50_ms"]) <= TARGETS["page_p50_ms"],
                           "rss": d["index_rss_mb"] <= TARGETS["index_rss_mb"]} for env_id, d in out["datasets"].items()}
    return out


def _index(ws: Workspace, env_id: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _INDEX_ONE, str(ws.source), str(ws.storage), env_id],
                          capture_output=True, text=True, check=True, timeout=1800)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {"index_seconds": round(got["seconds"], 2), "index_rss_mb": round(got["rss_mb"], 1),
            "adapter": got["adapter"], "processor": got["processor"], "rows": got["rows"], "listed": got["listed"]}


def _file_mb(ws: Workspace, env_id: str) -> float:
    folder = ws.source / "datasets" / env_id / "data"
    return round(sum(p.stat().st_size for p in folder.iterdir()) / 1e6, 1)


def _pages(url: str, env_id: str, total: int, seconds: float) -> dict:
    rng = random.Random(7)
    split = "test" if env_id == data.SWE_ID else "train"
    tasks = [f"/t/{env_id}/{split}/{rng.randrange(total)}" for _ in range(SAMPLED_ROWS)]
    env_page = f"/d/{env_id}"
    first_env, first_task = _timed_get(url + env_page), _timed_get(url + tasks[0])
    for path in [env_page, *tasks[1:5]] * 3:  # both worker processes warmed, as pages.py does
        get(url + path)
    shown = [get(url + path)[2] for path in tasks[:20]]
    env_wrk = wrk.run(url, [env_page], connections=1, seconds=seconds)
    task_wrk = wrk.run(url, tasks, connections=1, seconds=seconds)
    return {"env_first_ms": first_env, "env_p50_ms": env_wrk.p50_ms, "env_p99_ms": env_wrk.p99_ms,
            "task_first_ms": first_task, "task_p50_ms": task_wrk.p50_ms, "task_p99_ms": task_wrk.p99_ms,
            "task_errors": task_wrk.errors, "task_kb": round(sum(map(len, shown)) / len(shown) / 1024, 1),
            "gold_patch_shown": any(data.PATCH_MARK.encode() in body for body in shown)}


def _snapshot_share(ws: Workspace, env_id: str, listed: int) -> dict:
    """Bytes the dataset adds to a snapshot, per 1,000 of the tasks it puts there."""
    from rlx.catalog import fetch_listing
    from rlx.snapshot.build import build_snapshot
    from rlx.snapshot.refresh import CompleteIndexes
    from rlx.sources.folder import FolderSource
    from rlx.store import Store

    records = [r for r in fetch_listing(FolderSource(ws.source)) if r.id == env_id]
    folder = ws.root / "snapshots"
    alone = build_snapshot(records, CompleteIndexes(Store(ws.storage)), folder / "alone.db", built_at=BUILT_AT)
    empty = build_snapshot([], CompleteIndexes(Store(ws.storage)), folder / "empty.db", built_at=BUILT_AT)
    added = alone["size"] - empty["size"]
    for path in folder.glob("*.db"):
        path.unlink()
    # The snapshot holds a task row for each listed row (the first 1,000 of a split), not for every row.
    return {"snapshot_bytes_added": added, "snapshot_kb_per_1000": round(added / max(1, listed) * 1000 / 1024, 1)}


NAMES = {data.SWE_ID: "SWE-bench's shape", data.PROMPTS_ID: "100,000 prompts"}


def targets(r: dict) -> list[list[str]]:
    x = r.get("real_rows")
    if not x:
        return []
    t, out = x["targets"], []
    for env_id, d in x["datasets"].items():
        ok = x["met"][env_id]
        out += [[f"{NAMES[env_id]}: indexed", f"≤ {t['index_seconds']:.0f} s", f"{d['index_seconds']:.2f} s",
                 met(ok["index"])],
                [f"{NAMES[env_id]}: environment / task page p50", f"≤ {t['page_p50_ms']:.0f} ms",
                 f"{d['env_p50_ms']:.1f} / {d['task_p50_ms']:.1f} ms", met(ok["pages"])],
                [f"{NAMES[env_id]}: peak RSS of the indexing worker", f"≤ {t['index_rss_mb']:.0f} MB",
                 f"{d['index_rss_mb']:.0f} MB", met(ok["rss"])]]
    return out


def render(r: dict) -> str | None:
    x = r.get("real_rows")
    if not x:
        return None
    rows = []
    for env_id, d in x["datasets"].items():
        rows.append([f"**{NAMES[env_id]}** (`{env_id}`)", f"{d['rows']:,} ({d['listed']:,} listed)",
                     f"{d['file_mb']:.0f} MB", f"{d['processor']}", f"{d['index_seconds']:.2f} s",
                     f"{d['index_rss_mb']:.0f} MB",
                     f"{d['env_p50_ms']:.1f} / {d['env_p99_ms']:.1f} ({d['env_first_ms']:.0f} first)",
                     f"{d['task_p50_ms']:.1f} / {d['task_p99_ms']:.1f} ({d['task_first_ms']:.0f} first)",
                     f"{d['snapshot_kb_per_1000']:.0f} KB", "yes" if d["gold_patch_shown"] else "no"])
    head = ["dataset", "rows", "parquet", "read as", "indexed", "worker peak RSS", "env page p50 / p99 ms",
            "task page p50 / p99 ms", "snapshot per 1,000 tasks", "gold patch shown"]
    return ("## o. Real datasets' shapes: SWE-bench's rows and 100,000 prompts\n\n"
            "`benchmarks/real_rows.py` (`benchmarks/real_rows_data.py` writes the data): SWE-bench's columns, 2,300 "
            "rows with a 100 KB gold patch and a 4,000-character issue each, in row groups of 1,000 (snappy); and "
            "100,000 prompts in 100 row groups of 1,000. Each indexed as the indexing job does (`choose`, then "
            "the adapter's `build_index`, from a folder source) in a process of its own (its VmHWM), served by "
            f"`rlx serve`, one connection, wrk; task pages for {SAMPLED_ROWS} rows drawn across each dataset. "
            "Snapshot per 1,000 tasks: a snapshot of the dataset alone less an empty one, per listed task. "
            "Withheld columns whose cells average over 4 KB (here the gold patch and the test patch) are never read, "
            "for the index or a page; a file whose row groups still decode to more than 2 MB is copied at "
            "indexing time in row groups of about 256 KB, and task pages read the copy.\n\n"
            + table(head, rows, "lrrlrrrrrl") + "\n" + _why(x))


def _why(x: dict) -> str:
    """Where a target is missed, how the rows are read now (2026-12-03, issue 31), so the miss is read against it."""
    swe = x["met"].get(data.SWE_ID, {})
    notes = []
    if swe.get("pages") is False:
        notes.append("A task page reads its row from the indexer's copy of the file in row groups of about 256 KB "
                     "(rlx/adapters/rows/regroup.py), without the gold patch and the test patch "
                     "(rlx/adapters/rows/columns.py): about 250 KB decoded per page, where the file's own row "
                     "group of 1,000 rows decodes to 127 MB.")
    if swe.get("rss") is False:
        notes.append("The indexer reads the first 1,000 rows without the large withheld columns (about 5 MB of "
                     "cells), and the small-group copy one source row group at a time, its read columns only.")
    return (" ".join(notes) + "\n") if notes else ""


def _timed_get(url: str) -> float:
    started = time.perf_counter()
    status, _, _ = get(url, timeout=120)
    if status != 200:
        raise RuntimeError(f"{url} answered {status}")
    return round((time.perf_counter() - started) * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the workspace in this folder")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    ws = create(args.keep)
    try:
        print(json.dumps(measure(ws, args.seconds) | {"load": os.getloadavg()}, indent=1))
    finally:
        if args.keep is None:
            remove(ws)
    return 0


if __name__ == "__main__":
    sys.exit(main())
