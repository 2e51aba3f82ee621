"""terminus-2, Harbor's own agent, driving a real tmux in the sandbox, against the OpenAI-compatible model stand-in."""

from __future__ import annotations

import shutil

import pytest

from tests.runs_fixtures import PROBES, probes_app, probes_folder, start_worker  # noqa: F401
from tests.runs_helpers import wait_for
from tests.stand_ins.model import ModelStandIn, action
from tests.runs.test_run_pages import post_run, run_id_of

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("tmux") is None,
                                reason="needs bubblewrap and tmux (.ci/run installs both)")
KEY = "sk-standin-NEVERSTORED-0123456789"
TASK = f"/t/{PROBES}/write-answer"


@pytest.fixture
def model():
    stand_in = ModelStandIn([action("echo $((6*7)) > /app/answer.txt && cat /app/answer.txt\n"),
                             action("", done=True)], key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def terminus_worker(probes_app, redis_client):
    probes_app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    probes_app.index_probes()
    process = start_worker(probes_app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"})
    yield process
    process.terminate()
    process.wait(15)


def test_terminus_2_types_the_models_commands_and_reaches_the_reward(probes_app, model, terminus_worker):
    client = probes_app.test_client()
    run_id = run_id_of(post_run(client, path=TASK, agent="terminus-2", model=model.model, endpoint=model.url,
                                api_key=KEY))
    run = wait_for(probes_app, run_id, timeout=180)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    assert run.usage.get("input_tokens", 0) >= 100  # the stand-in's usage, counted by Harbor
    assert run.usage.get("cost") == "unknown" and "cost_usd" not in run.usage  # no published price: never 0
    assert all(r["authorization"] == f"Bearer {KEY}" for r in model.requests)
    assert any("6 * 7" in str(r["body"].get("messages")) for r in model.requests)  # it was given the task
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "echo $((6*7)) &gt; /app/answer.txt" in page  # the step's keystrokes
    assert 'class="run-reward">1<' in page and "<dt>Model</dt><dd>stand-in-model</dd>" in page
    storage = probes_app.config["RLX"].storage_dir
    leaks = [str(p) for p in storage.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == []


def test_a_model_that_refuses_the_key_ends_as_a_failed_run_that_says_so(probes_app, model, terminus_worker):
    client = probes_app.test_client()
    run_id = run_id_of(post_run(client, path=TASK, agent="terminus-2", model=model.model, endpoint=model.url,
                                api_key="sk-wrong"))
    run = wait_for(probes_app, run_id, timeout=60)
    assert run.status == "failed" and run.reward is None
    assert "refused the key" in run.outcome


def test_a_model_that_answers_garbage_is_cut_off_at_the_turn_limit(probes_app, model, terminus_worker):
    from rlx.runs.runner import MAX_TURNS

    model.garbage = True
    client = probes_app.test_client()
    run_id = run_id_of(post_run(client, path=TASK, agent="terminus-2", model=model.model, endpoint=model.url,
                                api_key=KEY))
    run = wait_for(probes_app, run_id, timeout=180)
    assert run.status == "finished" and run.rewards == {"reward": 0.0}  # the verifier judged what was left
    assert len(model.requests) == MAX_TURNS


@pytest.fixture
def impatient_worker(probes_app, probes_folder, redis_client):
    """A worker that gives a model answer three seconds, not ninety; the task's agent gets 30 s, not 120: a hung
    model still fails call after call before the run is taken down, and the test no longer waits two minutes."""
    task = probes_folder / "datasets" / PROBES / "tasks" / "write-answer" / "task.toml"
    task.write_text(task.read_text().replace("[agent]\ntimeout_sec = 120.0", "[agent]\ntimeout_sec = 30.0"))
    probes_app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    probes_app.index_probes()
    process = start_worker(probes_app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1",
                                                      "RLX_MODEL_CALL_TIMEOUT": "3"})
    yield process
    process.terminate()
    process.wait(15)


def test_a_model_that_hangs_ends_the_run_with_a_record_that_says_so_and_nothing_left(probes_app, model,
                                                                                     impatient_worker):
    from tests.runs_fixtures import sandboxes_of

    model.hang = True
    client = probes_app.test_client()
    run_id = run_id_of(post_run(client, path=TASK, agent="terminus-2", model=model.model, endpoint=model.url,
                                api_key=KEY))
    run = wait_for(probes_app, run_id, timeout=240)
    assert not run.active and run.reward != 1.0
    assert model.requests, "the model was never asked"
    assert "timed out" in (run.outcome or "").lower() or "timeout" in (run.outcome or "").lower(), run.outcome
    assert sandboxes_of(impatient_worker.pid) == set()  # no sandbox (and so no tmux inside one) left by this run
