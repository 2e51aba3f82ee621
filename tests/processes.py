"""Helpers for tests that start, watch and kill real processes (workers, `rlx demo`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from rq import Worker

from rlx.supervisor import die_with_parent


def wait_until(predicate, timeout: float = 60.0, every: float = 0.1):
    """Poll `predicate` until it returns something truthy (returned), or give up after `timeout` (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    return None


def wait_or_fail(condition, what: str, seconds: float = 60.0, every: float = 0.05):
    """The tests' one polling helper: poll `condition` every `every` s until it returns something truthy (returned);
    fail the test naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(every)
    return found


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting for its parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def started_at(pid: int) -> int | None:
    """When `pid` started, in clock ticks after boot (/proc/<pid>/stat's 22nd field), or None once it is gone.
    This host's pids wrap (pid_max 32768) while the suite runs: a pid seen earlier may name another process by
    now, and the pair (pid, start) is what tells them apart."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


def remember(pids) -> dict[int, int]:
    """{pid: start} for the processes among `pids` still there: enough to find the very same ones later."""
    return {pid: start for pid in pids if (start := started_at(pid)) is not None}


def still_running(pid: int, start: int) -> bool:
    """The process remembered as (pid, start) is alive: not gone, not a zombie, and its pid not reused since."""
    return alive(pid) and started_at(pid) == start


def signal_if_same(pid: int, start: int, sig=signal.SIGKILL) -> bool:
    """Send `sig` to the process remembered as (pid, start), and to no other one that took its pid since: the
    pidfd is opened first and names one process for good, so checking its start after cannot race a reuse."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    try:
        if started_at(pid) != start:
            return False
        signal.pidfd_send_signal(fd, sig)
        return True
    except ProcessLookupError:
        return False
    finally:
        os.close(fd)


def children_of(pid: int) -> list[int]:
    """Living direct children of `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, IndexError, ProcessLookupError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def descendants_of(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def config_env(config, redis_url: str, **extra: str) -> dict:
    """The environment that makes a process we start (server or worker) read the same store and source as
    `config`, on `redis_url`."""
    return {"REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir), "RLX_SOURCE": config.source,
            "SESSION_SECRET": "test-secret", **extra}


def start_worker(env: dict, connection, queues: str = "") -> tuple[subprocess.Popen, Worker]:
    """A real worker process on `queues` (all of them when empty), with `env` as its whole environment; returned
    once it has registered in Redis (with its RQ record)."""
    # In a session of its own, as `rlx demo` starts its workers: a signal meant for the worker's group (a horse
    # killed by mistake with its group) stays there instead of reaching the test run.
    process = subprocess.Popen([sys.executable, "-m", "workers.rq_worker", "--queues", queues], env=env,
                               start_new_session=True, preexec_fn=die_with_parent)

    def registered():
        assert process.poll() is None, "the worker exited at start"
        return next((w for w in Worker.all(connection=connection) if w.pid == process.pid), None)

    worker = wait_until(registered, timeout=60)
    assert worker is not None, "the worker did not register within 60 s"
    return process, worker


def stop_all(processes) -> None:
    """SIGTERM every process first, then wait for each: they shut down side by side, not one after another.

    One still running 15 s on is killed with its session (its sandboxes too) before the test is failed for it: a
    worker left behind would take the next tests' jobs from the same Redis and fail them instead."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    stuck = []
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            stuck.append(process.pid)
            try:
                os.killpg(process.pid, signal.SIGKILL)  # started in a session of its own (start_worker)
            except (ProcessLookupError, PermissionError):
                process.kill()
            process.wait(30)
    assert not stuck, f"still running 15 s after SIGTERM, killed: {stuck}"


def kill(process: subprocess.Popen, sig=signal.SIGKILL) -> None:
    os.kill(process.pid, sig)
    process.wait(30)
