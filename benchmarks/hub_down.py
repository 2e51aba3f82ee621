"""Pages while the Hub is down: how long an environment or task page whose index is on disk takes to answer when the
Hub's repository info answers 503 (or nothing), under `rlx serve`'s production path (gunicorn, gevent workers).

Standalone: `python -m benchmarks.hub_down [--requests N]` prints one line per case. The Hub stand-in serves the
default test Hub; one dataset is indexed into a fresh store, then the Hub fails and a fresh server is asked.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from benchmarks.stats import median
from rlx import create_app
from rlx.config import Config
from rlx.queue.embedded import EmbeddedRedis
from tests.conftest import index_now
from tests.stand_ins.hub import HubStandIn
from tests.stand_ins.hub_fixtures import PUBLIC_HARBOR, populate_default_hub

PATHS = {"environment page": f"/d/{PUBLIC_HARBOR}", "task page": f"/t/{PUBLIC_HARBOR}/hello-world",
         "task JSON": f"/api/task/{PUBLIC_HARBOR}/hello-world"}
WORKERS = 2


def timed_get(url: str) -> tuple[int, float]:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as err:
        status = err.code
    return status, time.perf_counter() - started


def serve(env: dict) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", str(WORKERS), "-b",
                                f"127.0.0.1:{port}", "rlx:create_app()"], env={**os.environ, **env},
                               stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return process, url
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


def measure(env: dict, hub: HubStandIn, fault, requests: int) -> dict[str, tuple]:
    """Per path: (statuses seen, first request's seconds, median of the rest) against a fresh server."""
    hub.clear_faults()
    fault(hub)
    process, url = serve(env)
    try:
        out = {}
        for label, path in PATHS.items():
            runs = [timed_get(url + path) for _ in range(requests)]
            out[label] = ({s for s, _ in runs}, runs[0][1], median([t for _, t in runs[1:]]))
        return out
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:  # a worker still waits on the silent Hub (up to its read timeout)
            process.kill()
            process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    with tempfile.TemporaryDirectory() as tmp, populate_default_hub(HubStandIn()) as hub:
        redis = EmbeddedRedis(Path(tmp) / "redis")
        env = {"STORAGE_DIR": str(Path(tmp) / "data"), "REDIS_URL": redis.start(), "RLX_SOURCE": "hub",
               "HF_ENDPOINT": hub.url, "SESSION_SECRET": "bench"}
        try:
            index_now(create_app(Config.from_env(env)), PUBLIC_HARBOR)
            repo_info = f"/api/datasets/{PUBLIC_HARBOR}"
            cases = {"Hub up": lambda h: None,
                     "repo info 503": lambda h: h.fail(503, times=10**9, path_contains=repo_info),
                     "repo info silent (600 s)": lambda h: h.slow(600, path_contains=repo_info)}
            for case, fault in cases.items():
                for label, (statuses, first, rest) in measure(env, hub, fault, args.requests).items():
                    print(f"{case:26} {label:17} status {sorted(statuses)}  first {first:6.2f} s  "
                          f"then median {rest * 1000:7.1f} ms")
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
