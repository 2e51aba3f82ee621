"""MiMo Code (`mimo`, the harness released with MiMo, installed ahead of time by `make agents`) on one of MiMo's
tasks (the bundled Harbor conversion of the release) in the local sandbox, against the OpenAI-compatible model
stand-in: it reaches the task's reward, its steps stream on the run page while it runs, and the key never leaves
the worker's relay."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from rlx.config import Config
from rlx.runs import agents, events
from tests.conftest import EXAMPLES, index_now
from tests.runs.test_run_pages import post_run, run_id_of
from tests.runs_fixtures import start_worker
from tests.runs_helpers import wait_for
from tests.stand_ins.model import ModelStandIn, bash

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-standin-NEVERSTORED-mimo-0123456789"
TWIN = "rlx-examples/mimo-release-harbor"
TASK = f"/t/{TWIN}/music-gk-0812"  # task.toml: mimo_instance_id = "gK-0812"
SOLUTION = EXAMPLES / "datasets" / TWIN / "music-gk-0812" / "solution" / "solve.sh"
SOLVE = f"bash <<'SOLUTION'\n{SOLUTION.read_text()}\nSOLUTION"
AGENTS_DIR = Config.__dataclass_fields__["agents_dir"].default
MIMO = agents.program_path(agents.get("mimo"), AGENTS_DIR)

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)"),
              pytest.mark.skipif(platform.machine() != "x86_64", reason="MiMo Code is published for x86_64 only")]


@pytest.fixture(scope="session")
def installed_mimo():
    """What `make agents` installs (idempotent: nothing to do when it already ran)."""
    if not MIMO.exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is absent, so MiMo Code cannot be installed ahead of time (deploy/agents/install.sh)")
        subprocess.run([str(ROOT / "deploy" / "agents" / "install.sh"), "mimo"], check=True, timeout=600,
                       env={**os.environ, "UV": str(ROOT / ".tools" / "bin" / "uv")})
    return AGENTS_DIR


@pytest.fixture
def mimo_worker(app, redis_client):
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TWIN)
    process = start_worker(app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"})
    yield process
    process.terminate()
    process.wait(15)


def test_mimo_runs_the_models_commands_on_a_mimo_task_and_reaches_the_reward(installed_mimo, app, capfd,
                                                                            mimo_worker):
    model = ModelStandIn([bash(SOLVE + "\nsleep 3", say="I will write the waltz in ABC.")], key=KEY).start()
    try:
        client = app.test_client()
        started = time.monotonic()
        run_id = run_id_of(post_run(client, path=TASK, agent="mimo", model=model.model, endpoint=model.url,
                                    api_key=KEY))
        run = wait_for(app, run_id, timeout=300)
    finally:
        model.stop()
    assert run.status == "finished", run.outcome
    assert run.agent == "mimo" and run.rewards == {"reward": 1.0}
    calls = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert calls and all(r["authorization"] == f"Bearer {KEY}" for r in calls)  # the relay added the key
    agent_turns = [r for r in calls if r["body"].get("tools")]
    assert agent_turns and all(r["body"]["model"] == model.model for r in agent_turns)
    assert "bash" in [t["function"]["name"].lower() for t in agent_turns[0]["body"]["tools"]]
    assert "waltz" in str(agent_turns[0]["body"]["messages"])  # it was given the task
    assert any(m.get("role") == "tool" for m in agent_turns[-1]["body"]["messages"])  # and the command's output
    assert run.usage.get("input_tokens", 0) >= 100 and run.usage.get("cost") == "unknown", run.usage
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "I will write the waltz in ABC." in page and 'class="run-reward">1<' in page
    with app.app_context():
        stream = events.archived(app.extensions["rlx.store"], run_id)
    kinds = [e.get("kind") if e.get("kind") != "phase" else str(e.get("phase")).lower() for e in stream]
    assert "step" in kinds and kinds.index("step") < kinds.index("agent-end"), kinds  # read live from its lines
    commands = [c["text"] for e in stream if e.get("kind") == "step" for c in e.get("calls") or []]
    assert any("waltz.abc" in c for c in commands), commands  # its bash call, as the model wrote it
    rlx = app.config["RLX"]
    leaks = [str(p) for folder in (rlx.storage_dir, rlx.cache_dir) for p in folder.rglob("*")
             if p.is_file() and not p.is_symlink() and KEY.encode() in p.read_bytes()]
    assert leaks == []  # not in the store, the run record, nor Harbor's trial files
    logged = capfd.readouterr()
    assert KEY not in logged.out and KEY not in logged.err  # nor in the worker's log
    first = next(e["at"] for e in stream if e.get("kind") == "step") - stream[0]["at"]
    with capfd.disabled():
        print(f"mimo: first step {first:.1f} s, end {time.monotonic() - started:.1f} s")
