"""Tasks that misbehave on purpose: each ends as a run record that says what happened, with nothing left behind.

The probes (tests/fixtures/runs) reach for a denied network, never write a reward, fork without end, loop, or
sleep until their worker is killed. Every run goes through a real worker and Harbor's Trial in the sandbox.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import threading

import pytest

from rlx.runs import record
from tests.runs_fixtures import PROBES, children_of, probes_app, probes_folder, probes_worker  # noqa: F401
from tests.processes import wait_or_fail
from tests.runs_fixtures import SLEEPER_ALONE, processes_matching, sandboxes_of, task_path
from tests.runs_helpers import launch, wait_for

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")


@pytest.fixture
def host_listener():
    """A TCP server on the host's loopback that counts the connections it accepts."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(2)
    server.close()


def test_a_connection_attempt_fails_inside_a_no_network_sandbox(probes_app, probes_folder, host_listener,
                                                                  probes_worker):
    port, accepted = host_listener
    (task_path(probes_folder, "net-probe") / "environment" / "port.txt").write_text(str(port))
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "net-probe").id)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}, "the task's own check says the connection went through"
    assert accepted == [], "the host's listener was reached from a no-network sandbox"


def test_a_verifier_that_writes_no_reward_is_not_scored(probes_app, probes_worker):
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "no-reward").id)
    assert run.status == "finished"
    assert run.scored is False and run.rewards is None and run.reward is None
    assert "Not scored" in run.outcome


def test_a_fork_bomb_hits_the_process_cap_and_leaves_nothing(probes_app, probes_worker):
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "fork-bomb").id)
    assert run.status in ("finished", "failed")
    assert run.error_type == "AgentTimeoutError", run.outcome
    assert "time limit" in run.outcome
    with probes_app.app_context():
        log = (record.trial_dir(probes_app.extensions["rlx.store"], run.id) / "agent" / "oracle.txt").read_text()
    assert "Resource temporarily unavailable" in log, "the bomb was never refused a fork"
    assert processes_matching("sleep 4141") == []


def test_an_agent_that_loops_is_stopped_at_its_time_limit(probes_app, probes_worker):
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "endless-loop").id)
    assert run.error_type == "AgentTimeoutError" and "time limit" in run.outcome
    assert run.rewards == {"reward": 0.0}  # the verifier still ran, on what the agent left
    assert processes_matching("while true; do echo looping") == []


@SLEEPER_ALONE
def test_a_worker_killed_mid_run_leaves_nothing_behind_and_a_failed_record(probes_app, probes_worker):
    probes_app.index_probes()
    run = launch(probes_app, PROBES, "sleeper")
    wait_for(probes_app, run.id, done=lambda r: r.status == "running")
    wait_or_fail(lambda: processes_matching("sleep 4343"), "the sandboxed agent never started", 60, every=0.1)
    assert sandboxes_of(probes_worker.pid), "no sandbox found under the worker running it"
    sandbox_pids = [*sandboxes_of(probes_worker.pid), *processes_matching("sleep 4343")]
    horses = children_of(probes_worker.pid)
    assert horses, "the worker has no work horse"
    for horse in horses:
        os.kill(horse, signal.SIGKILL)
    done = wait_for(probes_app, run.id)
    assert done.status == "failed"
    assert "killed" in done.outcome
    wait_or_fail(lambda: not any(_alive(pid) for pid in sandbox_pids),
                 f"sandbox processes outlived their worker: {sandbox_pids}", 10, every=0.1)
    cache = probes_app.config["RLX"].cache_dir
    assert not list(cache.glob(f"rlx-run-{run.id}-*")), "the task copy was left in the cache"


@SLEEPER_ALONE
def test_a_run_past_its_jobs_time_limit_is_taken_down_and_says_so(probes_app, probes_worker):
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "sleeper", job_timeout=6).id)
    assert run.status == "failed" and run.reward is None
    assert "time limit" in run.outcome
    wait_or_fail(lambda: not processes_matching("sleep 4343"), "the sandbox outlived its job", 10, every=0.1)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_no_token_reaches_the_sandbox_or_the_store(probes_app, redis_client):
    """The worker holds tokens (HF_TOKEN, a model key); a task prints its whole environment; nothing leaks."""
    from tests.runs_fixtures import start_worker

    marker_hf, marker_key = "hf_LEAKCHECKtoken0123456789", "sk-LEAKCHECKkey0123456789"
    probes_app.index_probes()
    worker = start_worker(probes_app, redis_client, {"HF_TOKEN": marker_hf, "OPENAI_API_KEY": marker_key})
    try:
        run = wait_for(probes_app, launch(probes_app, PROBES, "env-dump").id)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.rewards == {"reward": 1.0}
    storage = probes_app.config["RLX"].storage_dir
    printed = (storage / "runs" / run.id / "trial" / "agent" / "oracle.txt").read_text()
    assert "PATH=" in printed  # the task really printed its environment
    leaks = [str(p) for p in storage.rglob("*") if p.is_file()
             and (marker_hf.encode() in p.read_bytes() or marker_key.encode() in p.read_bytes())]
    assert leaks == []


def test_a_process_left_running_cannot_forge_the_verifiers_reward(probes_app, probes_worker):
    """The probe's solution leaves a loop writing 1 where its verifier writes 0: killed before the verifier runs,
    it forges nothing, and the sandbox's other walls still hold (the run ends, scored 0)."""
    probes_app.index_probes()
    run = wait_for(probes_app, launch(probes_app, PROBES, "reward-forger").id)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 0.0}, "a process the solution left running wrote the reward"
