"""Stopping a worker kills its work horse, and only it: never the worker's own process group (a horse just forked
has not made its own group yet), and never a stranger that took the pid of a horse already gone.

Each case runs in a process of its own session, standing in for the worker, so that a wrong kill ends that process
and not the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STOPS_ITS_HORSE = textwrap.dedent("""
    import signal, subprocess, types
    from workers.rq_worker import AppWorker
    # A horse the moment after the fork: still in the worker's process group.
    horse = subprocess.Popen(["sleep", "60"])
    AppWorker.kill_horse(types.SimpleNamespace(horse_pid=horse.pid), signal.SIGKILL)
    print("worker alive, horse", horse.wait(10), flush=True)
""")

LEAVES_A_STRANGER = textwrap.dedent("""
    import signal, sys, types
    from workers.rq_worker import AppWorker
    AppWorker.kill_horse(types.SimpleNamespace(horse_pid=int(sys.argv[1])), signal.SIGKILL)
    print("worker alive", flush=True)
""")


def _as_worker(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, start_new_session=True)


def test_a_horse_not_yet_in_its_own_group_is_killed_alone():
    done = _as_worker(STOPS_ITS_HORSE)
    assert done.returncode == 0, f"the worker killed itself (exit {done.returncode}): {done.stderr[-400:]}"
    assert done.stdout.strip() == "worker alive, horse -9"


def test_a_pid_that_is_not_the_workers_child_is_left_alone():
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        done = _as_worker(LEAVES_A_STRANGER, str(stranger.pid))
        assert done.stdout.strip() == "worker alive", done.stderr[-400:]
        assert stranger.poll() is None, "a process that was never the worker's horse was killed"
    finally:
        stranger.kill()
        stranger.wait()
