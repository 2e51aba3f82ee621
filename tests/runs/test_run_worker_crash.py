"""A worker that crashes mid-rollout, the whole process group killed at once (as the OOM killer, a lost container
or `kill -9 -<pgid>` would): no sandbox process, mount or task copy outlives it, and the run is marked failed with
why by the next worker to start, before anyone opens its page."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rq import Worker

from rlx.runs import record
from tests.processes import alive, config_env, wait_or_fail
from tests.runs_fixtures import PROBES, SLEEPER_ALONE, probes_app, probes_folder, start_worker  # noqa: F401
from tests.runs_helpers import launch

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")


def descendants(pid: int) -> list[int]:
    """Every living process under `pid` (children, their children, ...), from /proc."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def start_worker_in_own_group(app) -> subprocess.Popen:
    config = app.config["RLX"]
    env = {**os.environ, **config_env(config, config.redis_url)}
    return subprocess.Popen([sys.executable, "-m", "workers.rq_worker"], env=env, start_new_session=True)


def poll(check, timeout: float, what: str):
    return wait_or_fail(check, what, timeout, every=0.1)


@SLEEPER_ALONE
def test_a_crashed_worker_group_leaves_no_sandbox_mount_or_copy_and_the_next_worker_marks_the_run_failed(
        probes_app, redis_client):
    probes_app.index_probes()
    worker = start_worker_in_own_group(probes_app)
    try:
        poll(lambda: Worker.all(connection=redis_client), 30, "the worker did not register")
        run = launch(probes_app, PROBES, "sleeper", visibility="public")
        # The sandboxed agent is running: its `sleep 4343` is a descendant of the worker, inside bwrap.
        tree = poll(lambda: (lambda d: d if any("sleep 4343" in cmdline(p) for p in d) else None)(
            descendants(worker.pid)), 60, "the sandboxed agent never started")
        sandbox = [p for p in tree if "bwrap" in cmdline(p) or "sleep 4343" in cmdline(p)]
        assert any("bwrap" in cmdline(p) for p in sandbox), "no bubblewrap process under the worker"
        cache = probes_app.config["RLX"].cache_dir
        assert list(cache.glob(f"rlx-run-{run.id}-*")), "the run's task copy should exist while it runs"

        os.killpg(worker.pid, signal.SIGKILL)  # the worker and its work horse, at once, with no chance to clean up
        worker.wait(15)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(15)

    poll(lambda: not any(alive(p) for p in sandbox), 10, "sandbox processes outlived their worker")
    mounts = Path("/proc/self/mountinfo").read_text()
    assert run.id not in mounts and "rlx-run-" not in mounts, "a mount of the run is left on the host"

    # Nobody reads the run: the record still says running until a worker (the next one to start) cleans up.
    with probes_app.app_context():
        store = probes_app.extensions["rlx.store"]
        assert record.load(store, run.id).status == "running"
    survivor = start_worker(probes_app, redis_client)
    try:
        with probes_app.app_context():
            done = poll(lambda: (lambda r: r if not r.active else None)(record.load(store, run.id)), 90,
                        "the next worker never marked the crashed run")
    finally:
        survivor.terminate()
        survivor.wait(15)
    assert done.status == "failed" and done.reward is None
    assert done.outcome == "The worker running it stopped (killed or restarted) before it finished."
    assert not list(cache.glob(f"rlx-run-{run.id}-*")), "the task copy was left in the cache"
    page = probes_app.test_client().get(f"/r/{run.id}").get_data(as_text=True)
    assert "stopped (killed or restarted) before it finished" in page
