"""(f) A 1,000,000-row parquet dataset: indexing it, its environment page, and task pages for any row.

The dataset (`synth_catalog.write_million_rows`: verl rows, one parquet file, row groups of 1,000 rows as the
`datasets` library writes them) is added to the workspace's source tree. The rows adapter indexes it in a child
process, which reports its own peak RSS (VmHWM in /proc/self/status, the peak of its own memory since it was
started: getrusage's ru_maxrss would also count the benchmark's own size, inherited through fork); then a served app answers the
environment page (its first response after the index is written, then warm) and task pages for rows drawn at
random across the whole million, one connection, wrk.

`python -m benchmarks.rows [--keep DIR]` runs it alone and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import wrk
from benchmarks.servers import app_server, get
from benchmarks.workspace import Workspace, create, remove
from scripts import synth_catalog

TARGETS = {"env_first_ms": 300.0, "task_p50_ms": 50.0, "index_rss_mb": 300.0}
SAMPLED_ROWS = 300

_INDEX_ONE = """
import sys, time
from pathlib import Path
from rlx.adapters import Env
from rlx.adapters.rows.adapter import RowsAdapter
from rlx.sources.folder import FolderSource
from rlx.store import Store
source = FolderSource(sys.argv[1])
env = Env(source.repo_info("dataset", sys.argv[3]), source, Store(Path(sys.argv[2])))
started = time.perf_counter()
index = RowsAdapter().build_index(env)
print(time.perf_counter() - started, index.summary["rows_total"], len(index.rows),
      next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


def measure(ws: Workspace, seconds: float = 3.0) -> dict:
    started = time.perf_counter()
    synth_catalog.write_million_rows(ws.source)
    written = time.perf_counter() - started
    done = subprocess.run([sys.executable, "-c", _INDEX_ONE, str(ws.source), str(ws.storage),
                           synth_catalog.MILLION_ID], capture_output=True, text=True, check=True, timeout=1800)
    index_s, total, listed, peak_kb = done.stdout.split()
    org, name = synth_catalog.MILLION_ID.split("/")
    rng = random.Random(7)
    task_paths = [f"/t/{org}/{name}/train/{rng.randrange(synth_catalog.MILLION_ROWS)}" for _ in range(SAMPLED_ROWS)]
    with app_server(ws, log_name="rows-app") as url:
        first = _timed_get(url + f"/d/{org}/{name}")  # a fresh process: imports and template compiling included
        first_task = _timed_get(url + task_paths[0])
        for path in [f"/d/{org}/{name}", *task_paths[1:5]] * 3:  # every worker process warmed, as pages.py does
            get(url + path)
        env_wrk = wrk.run(url, [f"/d/{org}/{name}"], connections=1, seconds=seconds)
        task_wrk = wrk.run(url, task_paths, connections=1, seconds=seconds)
        statuses = {get(url + path)[0] for path in task_paths[:20]}
    return {
        "rows": int(total), "listed": int(listed), "write_seconds": round(written, 1),
        "index_seconds": round(float(index_s), 2),
        "index_rss_mb": round(int(peak_kb) / 1024, 1),  # VmHWM is in kB
        "env_first_ms": first, "env_p50_ms": env_wrk.p50_ms, "env_p99_ms": env_wrk.p99_ms,
        "task_first_ms": first_task, "task_p50_ms": task_wrk.p50_ms, "task_p99_ms": task_wrk.p99_ms,
        "task_rps": task_wrk.rps, "task_statuses": sorted(statuses), "targets": TARGETS,
    }


def _timed_get(url: str) -> float:
    started = time.perf_counter()
    status, _, _ = get(url)
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
        print(json.dumps(measure(ws, args.seconds), indent=1))
    finally:
        if args.keep is None:
            remove(ws)
    return 0


if __name__ == "__main__":
    sys.exit(main())
