"""A batch with an installed agent: the batch form offers it with the model fields, and a 3-task batch of bundled
tasks (terminal-basics' easy ones) runs it in the local sandbox against the model stand-in, each run reaching its
reward on the batch page. One agent here (mini-swe-agent, the quickest to start); every agent's start is measured
by benchmarks/agents_first_step.py."""

from __future__ import annotations

import re
import shutil

import pytest

from rlx.runs import batch as batches
from rlx.runs import record
from rlx.runs.models import batch_secret_key
from tests.conftest import EXAMPLES, index_now
from tests.processes import stop_all, wait_or_fail
from tests.runs.test_run_installed_agents import installed_agents  # noqa: F401 (the fixture)
from tests.runs_fixtures import start_worker
from tests.runs_helpers import TERMINAL
from tests.stand_ins.model import ModelStandIn, bash

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)")
KEY = "sk-batch-agent-NEVERSTORED-0123456789"
OURS = {"Origin": "http://localhost"}
EASY = ("config-rewrite-sed", "csv-sales-rollup", "nginx-log-summary")  # f=difficulty:easy
MARKERS = {"config-rewrite-sed": "app.conf", "csv-sales-rollup": "sales.csv", "nginx-log-summary": "access.log"}


def solve_any_easy_task() -> str:
    """One bash command that runs the reference solution of whichever easy task it finds itself in: the stand-in
    answers every run of the batch alike, as a model that knows the three tasks would."""
    branches = []
    for task, marker in MARKERS.items():
        solution = (EXAMPLES / "datasets" / TERMINAL / "tasks" / task / "solution" / "solve.sh").read_text()
        branches.append(f"if [ -f /app/{marker} ]; then bash <<'SOLVE_{task.upper().replace('-', '_')}'\n"
                        f"{solution}\nSOLVE_{task.upper().replace('-', '_')}\nfi")
    return "\n".join(branches)


@pytest.fixture
def model():
    stand_in = ModelStandIn([bash(solve_any_easy_task(), say="I will run the task's commands."),
                             bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", say="Done.")], key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def workers(app, redis_client):
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TERMINAL)
    processes = [start_worker(app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"}) for _ in range(2)]
    yield processes
    stop_all(processes)


def test_the_batch_form_offers_the_installed_agents_with_the_model_fields(installed_agents, indexed_client):
    form = indexed_client.get(f"/d/{TERMINAL}").get_data(as_text=True)
    batch_form = form[form.index('class="batch-form"'):]
    batch_form = batch_form[:batch_form.index("</form>")]
    for agent in ("opencode", "mini-swe-agent", "pi", "claude-code", "codex"):
        assert f'<option value="{agent}">{agent}</option>' in batch_form, agent  # offered, not greyed
    assert all(f'name="{name}"' in batch_form for name in ("model", "endpoint", "api_key"))


def test_a_mini_swe_agent_batch_of_three_bundled_tasks_reaches_each_reward(installed_agents, app, model, workers,
                                                                             redis_client):
    client = app.test_client()
    response = client.post(f"/d/{TERMINAL}/batch", headers=OURS, data={
        "agent": "mini-swe-agent", "visibility": "private", "cap": "2", "f": "difficulty:easy",
        "model": model.model, "endpoint": model.url, "api_key": KEY})
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    batch_id = re.search(r"/b/([a-z0-9]{12})$", response.headers["Location"]).group(1)
    wait_or_fail(lambda: "hx-trigger" not in client.get(f"/b/{batch_id}/progress").get_data(as_text=True),
                 "the batch to finish within 400 s", 400, every=0.5)
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    with app.app_context():
        store = app.extensions["rlx.store"]
        batch = batches.load(store, batch_id)
        runs = [record.load(store, run_id) for run_id in batch.run_ids]
    assert batch.status == "finished" and sorted(run.ref for run in runs) == list(EASY)
    assert [run.status for run in runs] == ["finished"] * 3, [run.outcome for run in runs]
    assert [run.rewards for run in runs] == [{"reward": 1.0}] * 3  # each task's verifier, on what the agent did
    assert all(run.agent == "mini-swe-agent" and run.model == model.model for run in runs)
    assert "mini-swe-agent with stand-in-model on 3 tasks" in page and "<strong>3 of 3 done</strong>" in page
    assert len(re.findall(r'<td class="batch-reward">1(\.0)?</td>', page)) == 3
    chat = [r for r in model.requests if r["path"].endswith("/chat/completions")]
    assert len(chat) == 6 and all(r["authorization"] == f"Bearer {KEY}" for r in chat)  # two turns per task
    assert redis_client.get(batch_secret_key(batch_id)) is None  # the key went with the batch's end
    storage = app.config["RLX"].storage_dir
    assert [str(p) for p in storage.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()] == []
