"""A worker that is only late (busy, its machine overloaded: here it and its work horse are stopped outright with
SIGSTOP) is not taken for dead: its run is not failed, /readyz still counts it, the queue's cleanup leaves its job
alone, and once it runs again the run finishes. A worker killed for real is still noticed within a few heartbeats,
its run failed with the clear message. Real worker processes, a real sandbox, real signals.

The heartbeat is one second and the lapse 30 (settings), so five missed heartbeats (the old rule's death: ten
seconds at the default two-second heartbeat) take about five seconds."""

from __future__ import annotations

import os
import shutil
import signal

import pytest
from rq.job import Job, JobStatus
from rq.utils import now

from rlx import create_app
from rlx.jobs.queues import QUEUES
from rlx.queue.liveness import Liveness
from rlx.runs import record
from tests.conftest import index_now
from tests.processes import children_of, descendants_of, kill, remember, signal_if_same, wait_until
from tests.runs_fixtures import PROBES, probes_folder, start_worker, task_path  # noqa: F401
from tests.runs_helpers import launch, wait_for

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")

TIMING = {"RLX_WORKER_HEARTBEAT_S": "1", "RLX_WORKER_LAPSE_S": "30"}
MARK = "sleep 6.5"  # the agent's command, found among the worker's descendants while it runs


@pytest.fixture
def late_app(make_config, redis_client, probes_folder):  # noqa: F811
    solve = task_path(probes_folder, "write-answer") / "solution" / "solve.sh"
    solve.write_text(f"#!/usr/bin/env bash\n{MARK}\necho 42 > /app/answer.txt\n")
    app = create_app(make_config(RLX_SOURCE=str(probes_folder), **TIMING))
    index_now(app, PROBES)
    return app


@pytest.fixture
def worker(late_app, redis_client):
    process = start_worker(late_app, redis_client, TIMING)
    yield process
    if process.poll() is None:
        os.kill(process.pid, signal.SIGCONT)
        process.kill()
        process.wait(15)


def agent_running(pid: int) -> list[tuple[int, int]]:
    """The worker and its work horse as (pid, start), once the agent's command runs under them."""
    if not any(MARK.encode() in _cmdline(p) for p in descendants_of(pid)):
        return []
    return list(remember([pid, *children_of(pid)]).items())


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ")
    except OSError:
        return b""


def signal_all(processes, sig) -> None:
    for pid, start in processes:
        signal_if_same(pid, start, sig)  # one that ended meanwhile is skipped, as is whatever took its pid since


def heartbeat_age(job: Job) -> float:
    job.refresh()
    return (now() - job.last_heartbeat).total_seconds()


def cleanup_as_a_worker_does(app) -> None:
    """The registry cleanup every worker runs every few seconds (workers/rq_worker.py), run here once."""
    from workers.rq_worker import build_worker

    build_worker(app, QUEUES, name="test-cleaner").clean_registries()


def test_a_worker_stopped_for_five_missed_heartbeats_keeps_its_run_which_then_finishes(late_app, worker,
                                                                                        redis_client):
    client = late_app.test_client()
    run = launch(late_app, PROBES, "write-answer", visibility="public")
    tree = wait_until(lambda: agent_running(worker.pid), timeout=90)
    assert tree, f"the agent never started in its sandbox: {wait_for(late_app, run.id, timeout=1).outcome}"
    job = Job.fetch(run.job_id, connection=redis_client)
    liveness = Liveness.of(late_app.config["RLX"])

    signal_all(tree, signal.SIGSTOP)  # the worker and its work horse: nothing heartbeats, the job cannot end
    try:
        assert wait_until(lambda: heartbeat_age(job) > liveness.late_s + 0.5, timeout=30)
        # Everything that decides a worker is dead looks now, five heartbeats late.
        page = client.get(f"/r/{run.id}").get_data(as_text=True)
        assert "stopped (killed or restarted)" not in page
        assert client.get("/readyz").get_json()["checks"]["workers"]["count"] == 1
        cleanup_as_a_worker_does(late_app)
        with late_app.app_context():
            assert record.load(late_app.extensions["rlx.store"], run.id).status == "running"
        assert job.get_status(refresh=True) == JobStatus.STARTED
    finally:
        signal_all(reversed(tree), signal.SIGCONT)

    done = wait_for(late_app, run.id, timeout=90)
    assert done.status == "finished" and done.reward == 1.0, done.outcome


def test_a_worker_killed_for_real_is_noticed_in_a_few_heartbeats_and_its_run_failed(late_app, worker,
                                                                                     redis_client):
    client = late_app.test_client()
    run = launch(late_app, PROBES, "write-answer", visibility="public")
    assert wait_until(lambda: agent_running(worker.pid), timeout=90), \
        f"the agent never started in its sandbox: {wait_for(late_app, run.id, timeout=1).outcome}"

    kill(worker, signal.SIGKILL)  # its work horse and sandbox go with it (the parent-death signal)

    # Well within the 30 s lapse: its process is gone from this machine, so five missed heartbeats are enough.
    done = wait_for(late_app, run.id, timeout=20)
    assert done.status == "failed" and done.reward is None
    assert done.outcome == "The worker running it stopped (killed or restarted) before it finished."
    assert "stopped (killed or restarted) before it finished" in client.get(f"/r/{run.id}").get_data(as_text=True)
    assert client.get("/readyz").get_json()["checks"]["workers"]["count"] == 0
