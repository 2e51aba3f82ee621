"""Runs on HF Sandboxes: a Job on the signed-in visitor's account, started with their token, driven through
huggingface_hub's own client against a stand-in of the Jobs API and the sandbox server (tests/stand_ins/hf_jobs.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time

import pytest

from rlx import create_app
from rlx.adapters.harbor.runoptions import hf_option
from rlx.runs import events
from rlx.runs.sandboxes import token_key
from tests.conftest import index_now
from tests.runs_fixtures import PROBES, SLEEPER_ALONE, probes_folder, start_worker, task_path  # noqa: F401
from tests.processes import children_of, wait_or_fail
from tests.runs_helpers import wait_for, write_small_task
from tests.stand_ins.hf_jobs import HFJobsStandIn
from tests.runs.test_run_pages import OURS, post_run, run_id_of

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the stand-in's jobs are bubblewrap sandboxes")
VISITOR = "hf_visitorTOKEN0123456789abcdef"
WORKER_TOKEN = "hf_workerOWNtoken0123456789"  # in the worker's environment: never used for a visitor's run
BUNDLED = "/t/rlx-examples/terminal-basics/permissions-audit"  # a prebuilt image (python:3.12-slim), no network


@pytest.fixture
def jobs():
    stand_in = HFJobsStandIn().start()
    stand_in.add_user(VISITOR, "alice")
    stand_in.add_user(WORKER_TOKEN, "the-server")
    yield stand_in
    stand_in.stop()


@pytest.fixture
def hf_app(make_config, redis_client, jobs, probes_folder):
    """The bundled examples and the probe tasks, with the Hub (sign-in, Jobs) at the stand-in."""
    sleeper = task_path(probes_folder, "sleeper") / "task.toml"
    sleeper.write_text(sleeper.read_text().replace("[environment]", '[environment]\ndocker_image = "ubuntu:24.04"'))
    examples = create_app(make_config(HF_ENDPOINT=jobs.url))
    probes = create_app(make_config(HF_ENDPOINT=jobs.url, RLX_SOURCE=str(probes_folder)))
    index_now(examples, "rlx-examples/terminal-basics")
    index_now(examples, "rlx-examples/science-puzzles")
    return examples, probes


def hf_worker(app, redis_client, jobs, tmp_path, **env):
    return start_worker(app, redis_client, {"HF_ENDPOINT": jobs.url, "HF_HOME": str(tmp_path / "hf-home"),
                                            "HF_TOKEN": WORKER_TOKEN, **env})


@pytest.fixture
def worker(hf_app, redis_client, jobs, tmp_path):
    process = hf_worker(hf_app[0], redis_client, jobs, tmp_path)
    yield process
    process.terminate()
    process.wait(15)


def signed_in(app):
    client = app.test_client()
    assert client.post("/signin/token", data={"token": VISITOR}, headers=OURS).status_code == 303
    return client


def leaks(app, *secrets: str) -> list[str]:
    storage = app.config["RLX"].storage_dir
    return [str(p) for p in storage.rglob("*") if p.is_file() and any(s.encode() in p.read_bytes() for s in secrets)]


def test_oracle_on_a_bundled_task_runs_in_an_hf_sandbox_on_the_visitors_account(hf_app, jobs, worker, redis_client):
    app = hf_app[0]
    client = signed_in(app)
    page = client.get(BUNDLED).get_data(as_text=True)
    assert '<input type="hidden" name="option" value="hf">' in page  # the HF Sandbox form is offered
    run_id = run_id_of(post_run(client, path=BUNDLED, option="hf"))
    run = wait_for(app, run_id, timeout=120)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    assert run.sandbox == "hf" and "HF Sandbox" in run.provenance["sandbox"]
    (job,) = jobs.jobs.values()
    assert job.owner == "alice" and job.spec["dockerImage"] == "python:3.12-slim"
    assert job.labels["rlx-run"] == run_id
    assert int(job.spec["environment"]["SBX_IDLE_TIMEOUT"]) >= run.job_timeout
    assert job.stage == "CANCELED", "the sandbox outlived its run"
    assert {auth for _m, path, auth in jobs.requests if path != "/api/agent-harnesses"} == {f"Bearer {VISITOR}"}
    # the sandbox's own log stream reached the run's events, and the run page shows it
    shown = [e.get("text", "") for _id, e in events.read(redis_client, run_id, count=events.MAX_EVENTS)
             if e["kind"] == "sandbox"]
    assert any(f"Sandbox {job.id} is ready" in text for text in shown)
    assert any("sandbox server 49983 listening" in text for text in shown)
    assert f"Sandbox {job.id} is ready" in client.get(f"/r/{run_id}").get_data(as_text=True)
    # the token: the Jobs API and the sandbox server saw only the visitor's (never the worker's own), the job's spec
    # does not hand it to the sandbox, Redis let it go with the run, and nothing in the store holds it
    assert VISITOR not in json.dumps(job.spec) and WORKER_TOKEN not in json.dumps(job.spec)
    assert redis_client.get(token_key(run_id)) is None
    archive = app.config["RLX"].storage_dir / "runs" / run_id / "events.json"
    wait_or_fail(archive.exists, "the run's events to be archived", 10)  # just after the record says finished
    assert leaks(app, VISITOR, job.spec["secrets"]["SBX_TOKEN"]) == []


def test_without_sign_in_the_hf_sandbox_is_unavailable_and_says_why(hf_app, jobs):
    client = hf_app[0].test_client()
    page = client.get(BUNDLED).get_data(as_text=True)
    assert ("HF Sandbox (a Hugging Face Job on your account):</strong> Sign in with Hugging Face to run it on an HF "
            "Sandbox") in page
    assert 'name="option" value="hf"' not in page
    response = post_run(client, path=BUNDLED, option="hf")
    assert response.status_code == 400
    assert "Sign in with Hugging Face" in response.get_data(as_text=True)
    assert jobs.jobs == {}


def test_each_option_says_where_a_task_can_run_and_why_not(hf_app):
    client = signed_in(hf_app[0])
    page = client.get("/t/rlx-examples/science-puzzles/statistics/sensor-summary").get_data(as_text=True)
    assert "it cannot run here" in page and "earlier build stage" in page  # local: a step it cannot replay
    assert "Its Dockerfile has steps an HF Sandbox cannot replay from the base image" in page
    bundled = client.get(BUNDLED).get_data(as_text=True)
    assert 'name="option" value="local"' in bundled and 'name="option" value="hf"' in bundled
    # the share per dataset: every task of science-puzzles but the one whose Dockerfile copies an earlier stage
    glance = " ".join(re.sub(r"<[^>]+>", " ", client.get("/d/rlx-examples/science-puzzles").get_data(
        as_text=True)).split())
    assert "Runnable on an HF Sandbox 80% (4 of 5)" in glance, glance[:2000]


@pytest.mark.parametrize("entry, why", [
    ({"runtime": {"kind": "image", "image": "cuda:12"}, "config": {"environment": {"gpus": 2}}},
     "It asks for GPUs or TPUs, and runs from here use a CPU sandbox (cpu-basic)."),
    ({"runtime": {"kind": "compose", "image": None}, "config": {"environment": {}}},
     "It runs as several containers with docker-compose; an HF Sandbox starts one."),
    ({"runtime": {"kind": "image", "image": "ubuntu:24.04"}, "config": {"agent": {"network_mode": "allowlist"}}},
     "Its network is limited to an allowlist, which an HF Sandbox cannot enforce."),
])
def test_tasks_an_hf_sandbox_cannot_run_say_why(entry, why):
    option = hf_option(entry)
    assert option.can_run is False and option.fields == []
    assert why in option.why_not


@SLEEPER_ALONE
def test_stopping_a_run_cancels_its_sandbox_job_upstream(hf_app, jobs, redis_client, tmp_path):
    app = hf_app[1]
    index_now(app, PROBES)
    worker = hf_worker(app, redis_client, jobs, tmp_path)
    try:
        client = signed_in(app)
        run_id = _start_sleeper(app, jobs, client)
        assert client.post(f"/r/{run_id}/stop", headers=OURS).status_code in (200, 303)
        run = wait_for(app, run_id, timeout=60)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "stopped"
    (job,) = jobs.jobs.values()
    assert job.stage == "CANCELED"
    assert ("POST", f"/api/jobs/alice/{job.id}/cancel") in [(m, p) for m, p, _a in jobs.requests]
    assert "sleep 4343" not in _processes()


def _start_sleeper(app, jobs, client) -> str:
    run_id = run_id_of(post_run(client, path=f"/t/{PROBES}/sleeper", option="hf"))
    wait_or_fail(lambda: any(j.stage == "RUNNING" for j in jobs.jobs.values()) and "sleep 4343" in _processes(),
                 "the sandboxed agent never started", 60, every=0.1)
    return run_id


@SLEEPER_ALONE
def test_a_worker_killed_mid_run_still_cancels_the_sandbox_upstream(hf_app, jobs, redis_client, tmp_path):
    app = hf_app[1]
    index_now(app, PROBES)
    worker = hf_worker(app, redis_client, jobs, tmp_path)
    try:
        run_id = _start_sleeper(app, jobs, signed_in(app))
        for horse in children_of(worker.pid):
            os.kill(horse, signal.SIGKILL)
        run = wait_for(app, run_id, timeout=60)
        assert run.status == "failed" and "killed" in run.outcome
        (job,) = jobs.jobs.values()
        # the surviving worker cancels it with the run's token, then forgets it
        wait_or_fail(lambda: job.stage == "CANCELED",
                     "the dead run's sandbox was left running on the visitor's account", 60, every=0.1)
    finally:
        worker.terminate()
        worker.wait(15)
    wait_or_fail(lambda: redis_client.get(token_key(run_id)) is None,
                 "the token outlived the cleanup", 10, every=0.1)
    assert leaks(app, VISITOR) == []


def test_jobs_answering_503_ends_as_a_failed_run_that_says_why(hf_app, jobs, worker):
    jobs.create_failure = 503
    app = hf_app[0]
    run = wait_for(app, run_id_of(post_run(signed_in(app), path=BUNDLED, option="hf")), timeout=60)
    assert run.status == "failed"
    assert "Hugging Face Jobs answered HTTP 503 when asked to start the sandbox" in run.outcome
    assert jobs.running_jobs() == []
    assert leaks(app, VISITOR) == []


def test_a_sandbox_that_never_answers_fails_the_run_and_is_cancelled(hf_app, jobs, redis_client, tmp_path):
    jobs.never_ready = True
    app = hf_app[0]
    worker = hf_worker(app, redis_client, jobs, tmp_path, RLX_HF_SANDBOX_START_TIMEOUT="2")
    try:
        run = wait_for(app, run_id_of(post_run(signed_in(app), path=BUNDLED, option="hf")), timeout=60)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "failed"
    assert "did not become ready within 2s" in run.outcome
    (job,) = jobs.jobs.values()
    assert job.stage == "CANCELED", "a sandbox that never came up was left to idle on the visitor's account"


def test_a_jobs_api_that_hangs_fails_the_run_in_bounded_time(hf_app, jobs, redis_client, tmp_path):
    jobs.hang_create = 30.0
    app = hf_app[0]
    worker = hf_worker(app, redis_client, jobs, tmp_path, RLX_HF_SANDBOX_START_TIMEOUT="2")
    try:
        run = wait_for(app, run_id_of(post_run(signed_in(app), path=BUNDLED, option="hf")), timeout=25)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "failed"
    assert "Hugging Face Jobs did not answer in time when asked to start the sandbox" in run.outcome


def _processes() -> str:
    from pathlib import Path

    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                out.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                pass
    return "\n".join(out)


def test_a_verifier_faking_tar_in_an_hf_sandbox_writes_nothing_outside_the_store(hf_app, jobs, redis_client,
                                                                                probes_folder, tmp_path):
    """The sandbox's `tar` is the task's own: what it hands back (a symbolic-link chain archive, which this
    Python 3.12.1's tarfile filter lets out) is unpacked by our reader, and nothing lands outside the run."""
    from tests.runs.test_sandbox_passage import HOSTILE, chain_archive, hostile_path

    outside = tmp_path / "outside"
    outside.mkdir()
    task = hostile_path(probes_folder, "fake-tar")
    (task / "tests" / "host-paths.txt").write_text(f"{tmp_path / 'host-secret.txt'} {outside}\n")
    (task / "tests" / "chain.tar").write_bytes(chain_archive(outside))
    # An image, as an HF Sandbox needs, and the network on: the job's root may then mount over its own `tar`.
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('network_mode = "no-network"',
                                             'network_mode = "public"\ndocker_image = "python:3.12-slim"'))
    app = hf_app[1]
    index_now(app, HOSTILE)
    worker = hf_worker(app, redis_client, jobs, tmp_path)
    try:
        run_id = run_id_of(post_run(signed_in(app), path=f"/t/{HOSTILE}/fake-tar", option="hf"))
        run = wait_for(app, run_id, timeout=120)
    finally:
        worker.terminate()
        worker.wait(15)
    assert list(outside.iterdir()) == []  # the chain archive was read member by member, its links left out
    # Its `tar` gave back only the chain, so no reward came with it: an unscored run, not an error.
    assert run.status == "finished" and not run.scored, run.outcome
    trial = app.config["RLX"].storage_dir / "runs" / run_id / "trial"
    assert "not a regular file" in (trial / "trial.log").read_text()  # the attack was made, and refused
    assert not any(p.is_symlink() for p in trial.rglob("*"))


BUILT = """FROM python:3.12-slim
WORKDIR /app
ENV GREETING=hello-env
COPY data.txt /app/data.txt
RUN echo "built:$GREETING" > /app/built.txt
"""


def test_a_dockerfile_task_starts_from_its_base_image_with_its_steps_replayed(hf_app, jobs, redis_client,
                                                                              probes_folder, tmp_path):
    # No prebuilt image: the sandbox starts FROM's image, then WORKDIR, ENV, COPY and RUN are replayed in order;
    # the solution reads what COPY and RUN left and the ENV the image would carry, the verifier checks it all.
    task = task_path(probes_folder, "built-from-dockerfile")
    write_small_task(task, solution='cat /app/built.txt /app/data.txt > /app/out.txt; echo "$GREETING" >> /app/out.txt',
                     verifier='[ "$(cat /app/out.txt)" = "$(printf \'built:hello-env\\ncopied\\nhello-env\')" ] '
                              '&& echo 1 || echo 0', dockerfile=BUILT)
    (task / "environment" / "data.txt").write_text("copied\n")
    probes = hf_app[1]
    index_now(probes, PROBES)
    client = signed_in(probes)
    path = f"/t/{PROBES}/built-from-dockerfile"
    assert '<input type="hidden" name="option" value="hf">' in client.get(path).get_data(as_text=True)
    worker = hf_worker(probes, redis_client, jobs, tmp_path)
    try:
        run_id = run_id_of(post_run(client, path=path, option="hf"))
        run = wait_for(probes, run_id, timeout=120)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    job = next(j for j in jobs.jobs.values() if j.labels.get("rlx-run") == run_id)
    assert job.spec["dockerImage"] == "python:3.12-slim"
    shown = [e.get("text", "") for _id, e in events.read(redis_client, run_id, count=events.MAX_EVENTS)]
    assert any("Replaying the Dockerfile" in text for text in shown)


def test_a_dockerfile_step_that_fails_fails_the_run_with_its_output(hf_app, jobs, redis_client, probes_folder,
                                                                    tmp_path):
    task = task_path(probes_folder, "broken-build")
    write_small_task(task, solution="echo done > /app/out.txt", verifier="echo 1",
                     dockerfile="FROM python:3.12-slim\nRUN echo build-went-wrong >&2; exit 7\n")
    probes = hf_app[1]
    index_now(probes, PROBES)
    client = signed_in(probes)
    worker = hf_worker(probes, redis_client, jobs, tmp_path)
    try:
        run = wait_for(probes, run_id_of(post_run(client, path=f"/t/{PROBES}/broken-build", option="hf")),
                       timeout=120)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "failed"
    assert "exit 7" in json.dumps(run.outcome) and "build-went-wrong" in json.dumps(run.outcome)
    assert all(j.stage == "CANCELED" for j in jobs.jobs.values())  # the sandbox that could not be built is gone
