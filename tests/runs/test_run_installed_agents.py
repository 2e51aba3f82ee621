"""Installed agents (Harbor's own classes, run from what `make agents` installed ahead of time) on a bundled task in
the local sandbox, against the OpenAI-compatible model stand-in, reaching the task's reward; the key never leaves
the worker's relay."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from rlx.config import Config
from rlx.runs import agents, events
from tests.conftest import index_now
from tests.processes import stop_all
from tests.runs_fixtures import start_worker
from tests.runs_helpers import TERMINAL, wait_for
from tests.runs.test_run_pages import post_run, run_id_of
from tests.stand_ins.model import ModelStandIn, answer, bash
from tests.conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-standin-NEVERSTORED-mswea-0123456789"
TASK = f"/t/{TERMINAL}/nginx-log-summary"
SOLUTION = EXAMPLES / "datasets" / TERMINAL / "tasks" / "nginx-log-summary" / "solution" / "solve.sh"
AGENTS_DIR = Config.__dataclass_fields__["agents_dir"].default
MSWEA = agents.program_path(agents.get("mini-swe-agent"), AGENTS_DIR)
CODEX = agents.program_path(agents.get("codex"), AGENTS_DIR)
PI = agents.program_path(agents.get("pi"), AGENTS_DIR)
OPENCODE = agents.program_path(agents.get("opencode"), AGENTS_DIR)
CLAUDE = agents.program_path(agents.get("claude-code"), AGENTS_DIR)
SOLVE = f"bash <<'SOLUTION'\n{SOLUTION.read_text()}\nSOLUTION"  # the agents' shells may be /bin/sh

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)")


@pytest.fixture(scope="session")
def installed_agents():
    """What `make agents` installs (idempotent: nothing to do when .ci/run or a developer already ran it)."""
    if not (MSWEA.exists() and CODEX.exists() and PI.exists() and OPENCODE.exists()
            and CLAUDE.exists()):
        if shutil.which("npm") is None:
            pytest.skip("npm is absent, so the agents cannot be installed ahead of time (deploy/agents/install.sh)")
        subprocess.run([str(ROOT / "deploy" / "agents" / "install.sh")], check=True, timeout=600,
                       env={**os.environ, "UV": str(ROOT / ".tools" / "bin" / "uv")})
    return AGENTS_DIR


@pytest.fixture
def model():
    stand_in = ModelStandIn([bash(SOLVE, say="I will write the report with Python."),
                             bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", say="Done.")], key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def examples_worker(app, redis_client):
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TERMINAL)
    process = start_worker(app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"})
    yield process
    stop_all([process])


def test_mini_swe_agent_runs_the_models_commands_and_reaches_the_reward(installed_agents, app, model,
                                                                          examples_worker):
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
    print(f"mini-swe-agent: first step {_first_step_s(app, run_id):.1f} s, end {time.monotonic() - started:.1f} s")
    storage = app.config["RLX"].storage_dir
    leaks = [str(p) for p in storage.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == []


def _first_step_s(app, run_id: str) -> float:
    """Seconds from the run's first event (queued) to its first step on the run page's stream."""
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    return next(e["at"] for e in stream if e.get("kind") == "step") - stream[0]["at"]


def _no_key_in(app) -> list[str]:
    storage = app.config["RLX"].storage_dir
    return [str(p) for p in storage.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]


def test_codex_runs_the_models_commands_over_the_responses_api_and_reaches_the_reward(installed_agents, app,
                                                                                      examples_worker):
    model = ModelStandIn([bash(SOLVE)], key=KEY).start()
    try:
        client = app.test_client()
        started = time.monotonic()
        run_id = run_id_of(post_run(client, path=TASK, agent="codex", model=model.model, endpoint=model.url,
                                    api_key=KEY))
        run = wait_for(app, run_id, timeout=240)
    finally:
        model.stop()
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    calls = [r for r in model.requests if r["path"].endswith("/responses")]
    assert len(calls) == 2 and all(r["authorization"] == f"Bearer {KEY}" for r in calls)
    assert any("access.log" in str(r["body"].get("input")) for r in calls)  # it was given the task
    assert run.usage.get("input_tokens", 0) >= 100 and run.usage.get("cost") == "unknown"
    print(f"codex: first step {_first_step_s(app, run_id):.1f} s, end {time.monotonic() - started:.1f} s")
    assert _no_key_in(app) == []


def test_pi_runs_the_models_commands_over_streamed_chat_and_reaches_the_reward(installed_agents, app, capfd,
                                                                             examples_worker):
    model = ModelStandIn([bash(SOLVE, say="I will write the report with Python.")], key=KEY).start()
    try:
        client = app.test_client()
        started = time.monotonic()
        run_id = run_id_of(post_run(client, path=TASK, agent="pi", model=model.model, endpoint=model.url,
                                    api_key=KEY))
        run = wait_for(app, run_id, timeout=240)
    finally:
        model.stop()
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    calls = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert len(calls) == 2 and all(r["authorization"] == f"Bearer {KEY}" for r in calls)  # the relay added it
    assert all(r["body"]["stream"] for r in calls) and "bash" in [t["function"]["name"] for t in
                                                                  calls[0]["body"]["tools"]]
    assert "access.log" in str(calls[0]["body"]["messages"])  # it was given the task
    assert run.usage.get("input_tokens", 0) >= 200 and run.usage.get("cost") == "unknown"
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "I will write the report with Python." in page and 'class="run-reward">1<' in page
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    kinds = [e.get("kind") if e.get("kind") != "phase" else str(e.get("phase")).lower() for e in stream]
    assert kinds.index("step") < kinds.index("agent-end"), kinds  # read from its session log while it ran
    commands = [c["text"] for e in stream if e.get("kind") == "step" for c in e.get("calls") or []]
    assert commands == [SOLVE]  # its one bash call, shown as the step it took
    assert _no_key_in(app) == []
    logged = capfd.readouterr()
    assert KEY not in logged.out and KEY not in logged.err  # nor in the worker's log
    with capfd.disabled():
        print(f"pi: first step {_first_step_s(app, run_id):.1f} s, end {time.monotonic() - started:.1f} s")


def test_opencode_runs_the_models_commands_over_streamed_chat_and_reaches_the_reward(installed_agents, app, capfd,
                                                                                   examples_worker):
    model = ModelStandIn([bash(SOLVE, say="I will write the report with Python.")], key=KEY).start()
    try:
        client = app.test_client()
        started = time.monotonic()
        run_id = run_id_of(post_run(client, path=TASK, agent="opencode", model=model.model, endpoint=model.url,
                                    api_key=KEY))
        run = wait_for(app, run_id, timeout=300)
    finally:
        model.stop()
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    calls = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert len(calls) == 2 and all(r["authorization"] == f"Bearer {KEY}" for r in calls)  # no title call; key added
    assert all(r["body"]["stream"] and r["body"]["model"] == model.model for r in calls)
    assert "bash" in [t["function"]["name"] for t in calls[0]["body"]["tools"]]
    assert "access.log" in str(calls[0]["body"]["messages"])  # it was given the task
    assert run.usage.get("input_tokens", 0) >= 200 and run.usage.get("cost") == "unknown"
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "I will write the report with Python." in page and 'class="run-reward">1<' in page
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    kinds = [e.get("kind") if e.get("kind") != "phase" else str(e.get("phase")).lower() for e in stream]
    assert "step" in kinds and kinds.index("step") < kinds.index("agent-end"), kinds  # read from its JSON lines live
    commands = [c["text"] for e in stream if e.get("kind") == "step" for c in e.get("calls") or []]
    assert commands == [SOLVE]
    assert _no_key_in(app) == []
    logged = capfd.readouterr()
    assert KEY not in logged.out and KEY not in logged.err  # nor in the worker's log
    with capfd.disabled():
        print(f"opencode: first step {_first_step_s(app, run_id):.1f} s, end {time.monotonic() - started:.1f} s")


def test_claude_code_runs_the_models_commands_through_the_messages_bridge_and_reaches_the_reward(
        installed_agents, app, capfd, examples_worker):
    model = ModelStandIn([bash(SOLVE + "\nsleep 3", say="I will write the report."),  # running when polled
                          answer("The report is written.")],
                         key=KEY).start()
    try:
        client = app.test_client()
        started = time.monotonic()
        run_id = run_id_of(post_run(client, path=TASK, agent="claude-code", model=model.model, endpoint=model.url,
                                    api_key=KEY))
        run = wait_for(app, run_id, timeout=300)
    finally:
        model.stop()
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    # Claude Code asked in Anthropic's terms; the endpoint was asked for chat completions, with the key
    chat = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert chat and all(r["authorization"] == f"Bearer {KEY}" for r in chat)
    agent_turns = [r for r in chat if any(t["function"]["name"] == "Bash" for t in r["body"].get("tools") or [])]
    assert any("access.log" in str(r["body"]["messages"]) for r in agent_turns)  # it was given the task
    assert any(m.get("role") == "tool" for r in agent_turns for m in r["body"]["messages"])  # the command's output
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert 'class="run-reward">1<' in page and "The report is written." in page
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    kinds = [e.get("kind") if e.get("kind") != "phase" else str(e.get("phase")).lower() for e in stream]
    assert kinds.index("step") < kinds.index("agent-end")  # streamed while the agent ran, not only afterwards
    commands = [c["text"] for e in stream if e.get("kind") == "step" for c in e.get("calls") or []]
    assert any("access.log" in c for c in commands), commands  # its Bash call, as typed
    # tokens as the endpoint counted them; Claude Code's own price (Anthropic's rates) is not the endpoint's
    assert run.usage.get("input_tokens", 0) >= 200 and run.usage.get("cost") == "unknown", run.usage
    assert _no_key_in(app) == []
    logged = capfd.readouterr()
    assert KEY not in logged.out and KEY not in logged.err  # nor in the worker's log
    with capfd.disabled():
        print(f"claude-code: first step {_first_step_s(app, run_id):.1f} s, end {time.monotonic() - started:.1f} s")
