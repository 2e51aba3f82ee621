"""Installed agents (Harbor's own classes, run from what `make agents` installed ahead of time) on a bundled task in
the local sandbox, against the OpenAI-compatible model stand-in, reaching the task's reward; the key never leaves
the worker's relay."""

from __future__ import annotations

import shutil
import time

import pytest

from rlx.config import Config
from rlx.runs import agents, events
from tests.conftest import index_now
from tests.runs_fixtures import start_worker
from tests.runs_helpers import TERMINAL, wait_for
from tests.runs.test_run_pages import post_run, run_id_of
from tests.stand_ins.model import ModelStandIn, bash
from tests.conftest import EXAMPLES

KEY = "sk-standin-NEVERSTORED-mswea-0123456789"
TASK = f"/t/{TERMINAL}/nginx-log-summary"
SOLUTION = EXAMPLES / "datasets" / TERMINAL / "tasks" / "nginx-log-summary" / "solution" / "solve.sh"
AGENTS_DIR = Config.__dataclass_fields__["agents_dir"].default
MSWEA = agents.program_path(agents.get("mini-swe-agent"), AGENTS_DIR)

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)"),
    pytest.mark.skipif(not MSWEA.exists(), reason=f"mini-swe-agent is not installed at {MSWEA}: run `make agents`"),
]


@pytest.fixture
def model():
    # mini-swe-agent runs each command with /bin/sh: the task's bash solution is handed to bash
    solve = f"bash <<'SOLUTION'\n{SOLUTION.read_text()}\nSOLUTION"
    stand_in = ModelStandIn([bash(solve, say="I will write the report with Python."),
                             bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", say="Done.")], key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def examples_worker(app, redis_client):
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TERMINAL)
    process = start_worker(app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"})
    yield process
    process.terminate()
    process.wait(15)


def test_mini_swe_agent_runs_the_models_commands_and_reaches_the_reward(app, model, examples_worker,
                                                                          redis_client):
    client = app.test_client()
    started = time.monotonic()
    run_id = run_id_of(post_run(client, path=TASK, agent="mini-swe-agent", model=model.model, endpoint=model.url,
                                api_key=KEY))
    run = wait_for(app, run_id, timeout=240)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    assert run.usage.get("input_tokens", 0) >= 100 and run.usage.get("output_tokens", 0) >= 50
    assert run.usage.get("cost") == "unknown" and "cost_usd" not in run.usage  # no published price: never 0
    chat = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert len(chat) == 2 and all(r["authorization"] == f"Bearer {KEY}" for r in chat)  # the relay added the key
    assert any("access.log" in str(r["body"].get("messages")) for r in chat)  # it was given the task
    assert chat[0]["body"]["tools"][0]["function"]["name"] == "bash"
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "I will write the report with Python." in page and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in page
    assert 'class="run-reward">1<' in page and "<dt>cost</dt><dd>unknown</dd>" in page
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    kinds = [e.get("kind") if e.get("kind") != "phase" else str(e.get("phase")).lower() for e in stream]
    assert "step" in kinds and "agent-end" in kinds, kinds
    assert kinds.index("step") < kinds.index("agent-end")  # streamed while the agent ran, not only afterwards
    commands = [c["text"] for e in stream if e.get("kind") == "step" for c in e.get("calls") or []]
    assert commands[-1] == "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    print(f"mini-swe-agent: {time.monotonic() - started:.1f} s from Run to its end")
    storage = app.config["RLX"].storage_dir
    leaks = [str(p) for p in storage.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == []
