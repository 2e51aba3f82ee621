"""`python -m benchmarks.demo_start [--tasks N]`: how fast `rlx demo` shows a catalog and serves a visitor while bulk
indexing runs, how fast it notices a killed worker, and how fast it stops.

`rlx demo` (the real CLI: embedded Redis, two workers, gunicorn) over a temporary folder holding one Harbor dataset
of N tiny tasks (3,500 by default) and one of a single task. Prints, in seconds:
- start to the first published snapshot (target: a few seconds, whatever the folder holds);
- a visit to the one-task dataset to its page being ready, while the bulk worker indexes the big one;
- SIGKILL of the index worker to /readyz no longer counting it, and to the demo's restart line;
- Ctrl-C to the demo's exit, with both work horses busy, and whether any of its processes remained.
Not part of `make bench`: it needs no catalog and runs alone in about a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from rq import Worker

from rlx.queue.connection import connect
from rlx.snapshot.schema import pointer_name
from rlx.store import Store
from rlx.config import Config
from rlx.queue.liveness import Liveness, worker_dead
from tests.big_folders import make_harbor_dataset
from tests.processes import alive, descendants_of, free_port, wait_until

BIG, SMALL = "bench-org/a-big", "bench-org/z-small"


def _get_json(url: str) -> dict:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read())
    except Exception:
        return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=3500)
    tasks = parser.parse_args().tasks
    with tempfile.TemporaryDirectory(prefix="rlx-demo-bench-") as tmp:
        root = Path(tmp)
        make_harbor_dataset(root / "source", BIG, tasks)
        make_harbor_dataset(root / "source", SMALL, 1)
        measure(root, tasks)  # prints each figure as it is measured



class Figures(dict):
    """Printed as they are measured."""

    def __setitem__(self, name, value):
        print(f"{name:<58} {value}", flush=True)
        super().__setitem__(name, value)


def measure(root: Path, tasks: int) -> dict:
    port, storage = free_port(), root / "data"
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HF_ENDPOINT")}
    env.update(STORAGE_DIR=str(storage), RLX_SOURCE=str(root / "source"), SESSION_SECRET="bench")
    pointer = Store(storage).snapshots_dir / pointer_name()
    figures = Figures()
    figures["big dataset (tasks)"] = f"{tasks:,}"
    started = time.monotonic()
    demo = subprocess.Popen([sys.executable, "-m", "rlx.cli", "demo", "--port", str(port), "--workers", "1"],
                            env=env, stdout=subprocess.DEVNULL, stderr=open(root / "demo.log", "wb"))
    try:
        assert wait_until(pointer.exists, timeout=300), "no snapshot published"
        figures["start to the first published snapshot (s)"] = f"{time.monotonic() - started:.1f}"
        assert wait_until(lambda: _get_json(url + "/readyz").get("ok"), timeout=120)

        visited = time.monotonic()
        urllib.request.urlopen(f"{url}/d/{SMALL}", timeout=30).read()
        assert wait_until(lambda: _get_json(f"{url}/api/env/{SMALL}").get("state") == "ready", timeout=600)
        figures["one-task dataset: visit to ready, bulk running (s)"] = f"{time.monotonic() - visited:.1f}"

        redis = connect(f"unix://{Store(storage).redis_dir / 'redis.sock'}")
        index_worker = next(w for w in Worker.all(connection=redis) if w.queue_names() == ["index"])
        os.kill(index_worker.pid, signal.SIGKILL)
        killed = time.monotonic()
        log = root / "demo.log"
        seen: dict[str, float] = {}
        checks = {
            # /readyz's own rule (the supervisor has usually started a new worker before this)
            "worker SIGKILL to /readyz no longer counting it (s)":
                lambda: not (w := Worker.find_by_key(index_worker.key, connection=redis)) or worker_dead(w, Liveness.of(Config.from_env({}))),
            "worker SIGKILL to the demo's 'running again' line (s)":
                lambda: "the index worker is running again" in log.read_text(),
        }

        def all_seen():
            for name, check in checks.items():
                if name not in seen and check():
                    seen[name] = time.monotonic() - killed
            return len(seen) == len(checks)

        assert wait_until(all_seen, timeout=120, every=0.05)
        for name in checks:
            figures[name] = f"{seen[name]:.1f}"

        urllib.request.urlopen(f"{url}/d/{BIG}", timeout=30).read()  # both workers now hold a busy horse
        workers = [w for w in Worker.all(connection=redis) if alive(w.pid)]
        wait_until(lambda: all(descendants_of(w.pid) for w in workers), timeout=120)
        processes = descendants_of(demo.pid)
        stopping = time.monotonic()
        demo.send_signal(signal.SIGINT)
        demo.wait(120)
        figures["Ctrl-C to exit, two jobs running (s)"] = f"{time.monotonic() - stopping:.1f}"
        wait_until(lambda: not [p for p in processes if alive(p)], timeout=10)
        figures["processes left after the demo stopped"] = str(len([p for p in processes if alive(p)]))
    finally:
        if demo.poll() is None:
            demo.kill()
    return figures


if __name__ == "__main__":
    main()
