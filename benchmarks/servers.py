"""Starting the servers under test on loopback, and stopping exactly those processes afterwards.

The app runs as in production: `rlx serve` (gunicorn, gevent workers, its own embedded Redis) over the workspace;
the peer is Datasette, "tuned" as in research/perf-anchors.md, over the same snapshot file.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from benchmarks.workspace import Workspace

BIN = Path(sys.executable).parent
DATASETTE_SETTINGS = ("--setting", "suggest_facets", "off", "--setting", "sql_time_limit_ms", "5000",
                      "--setting", "facet_time_limit_ms", "5000", "--setting", "cache_size_kb", "100000")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, timeout: float = 30.0, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


@contextmanager
def app_server(ws: Workspace, workers: int = 2, log_name: str = "app") -> Iterator[str]:
    """`rlx serve` on a free port; yields its base URL once /healthz answers."""
    with app_group(ws, workers, log_name=log_name) as (url, _):
        yield url


@contextmanager
def app_group(ws: Workspace, workers: int = 2, with_workers: bool = False,
              log_name: str = "app") -> Iterator[tuple[str, int]]:
    """`rlx serve [--with-workers]` on a free port; yields its base URL and the process id of `rlx` (see
    group_rss)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | ws.env()
    command = [str(BIN / "rlx"), "serve", "--port", str(port), "--workers", str(workers)]
    if with_workers:
        command.append("--with-workers")
    with _process(command, env, ws.root / f"{log_name}.log") as process:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(f"{url}/healthz", process, ws.root / f"{log_name}.log")
        yield url, process.pid


def group_rss(root: int) -> dict[str, list[float]]:
    """Resident memory (MB: VmRSS, and for gunicorn workers RssAnon too) of the gunicorn workers (a gunicorn
    process whose parent is gunicorn) and of the RQ
    workers' main processes among `root`'s descendants, read from /proc (the supervisor starts each child in a
    session of its own, so the process tree is what ties them to `root`)."""
    procs = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        procs[int(entry.name)] = (int(status["PPid"]), cmdline, int(status.get("VmRSS", "0 kB").split()[0]) / 1024,
                                  int(status.get("RssAnon", "0 kB").split()[0]) / 1024)
    ours, grew = {root}, True
    while grew:
        found = {pid for pid, (ppid, *_) in procs.items() if ppid in ours} - ours
        ours |= found
        grew = bool(found)
    gunicorn = {pid for pid in ours if pid in procs and "gunicorn" in procs[pid][1]}
    out: dict[str, list[float]] = {"gunicorn_workers": [], "gunicorn_workers_anon": [], "rq_workers": []}
    for pid in ours - {root}:
        ppid, cmd, rss, anon = procs[pid]
        if pid in gunicorn and ppid in gunicorn:
            out["gunicorn_workers"].append(rss)
            out["gunicorn_workers_anon"].append(anon)  # the rest is file pages: the snapshot's mmap, shared
        elif "workers.rq_worker" in cmd and "workers.rq_worker" not in procs.get(ppid, (0, ""))[1]:
            out["rq_workers"].append(rss)  # the worker itself, not a work horse it forked for a job
    return out


@contextmanager
def datasette_server(ws: Workspace) -> Iterator[str]:
    """Datasette serving the workspace's snapshot file (immutable, tuned); yields its base URL."""
    port = free_port()
    command = [str(BIN / "datasette"), "serve", "--immutable", str(ws.local_db), "--port", str(port),
               "--host", "127.0.0.1", *DATASETTE_SETTINGS]
    with _process(command, dict(os.environ), ws.root / "datasette.log") as process:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(f"{url}/-/versions.json", process, ws.root / "datasette.log")
        yield url


@contextmanager
def _process(command: list[str], env: dict, log_path: Path) -> Iterator[subprocess.Popen]:
    with open(log_path, "ab") as log:
        # Its own session, so stopping it reaches its children (gunicorn's workers) and nothing else.
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        yield process
    finally:
        _stop(process)


def _stop(process: subprocess.Popen, grace_s: float = 15.0) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # rlx stops gunicorn, then Redis, in order
        try:
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever of this process's own group is still there
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _wait_until_up(url: str, process: subprocess.Popen, log_path: Path, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url} never answered: the server exited ({process.returncode}); "
                               f"last log lines:\n{_tail(log_path)}")
        try:
            status, _, _ = get(url, timeout=2.0)
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s; last log lines:\n{_tail(log_path)}")


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
