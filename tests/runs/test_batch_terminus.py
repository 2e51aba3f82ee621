"""Batch evaluations with terminus-2: Harbor's own agent over a few tasks, its model reached through the visitor's
OpenAI-compatible endpoint or through Inference Providers' router with the visitor's token, both played by the
model stand-in (tests/stand_ins/model.py) scripting real tool calls. The key lives in Redis for the batch only."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rlx import create_app
from rlx.runs import batch as batches
from rlx.runs import record
from rlx.runs.models import batch_secret_key, secret_key
from tests.conftest import index_now
from tests.processes import stop_all, wait_or_fail
from tests.runs_fixtures import start_worker
from tests.runs_helpers import told, wait_for
from tests.stand_ins.hf_jobs import HFJobsStandIn
from tests.stand_ins.model import ModelStandIn, action

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("tmux") is None,
                                reason="needs bubblewrap and tmux (.ci/run installs both)")
DATASET = "rlx-tests/three"
KEY = "sk-batchkey-NEVERSTORED-0123456789"
VISITOR = "hf_batchVISITORtoken0123456789ab"
OURS = {"Origin": "http://localhost"}


def write_tasks(folder: Path, count: int = 3) -> None:
    """Tasks graded on what the agent did: reward 1 only when /app/answer.txt holds 42."""
    for i in range(count):
        task = folder / "datasets" / DATASET / "tasks" / f"answer-{i}"
        (task / "environment").mkdir(parents=True)
        (task / "tests").mkdir()
        (task / "task.toml").write_text(
            f'schema_version = "1.1"\n[task]\nname = "rlx-tests/answer-{i}"\n[verifier]\ntimeout_sec = 20.0\n'
            '[agent]\ntimeout_sec = 120.0\n[environment]\nnetwork_mode = "no-network"\n')
        (task / "instruction.md").write_text(f"Compute 6 * 7 and write it alone to /app/answer.txt (task {i}).\n")
        (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
        (task / "tests" / "test.sh").write_text(
            '#!/usr/bin/env bash\nmkdir -p /logs/verifier\nif [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; '
            'then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n')
        (task / "tests" / "test.sh").chmod(0o755)


def script() -> list[dict]:
    return [action("echo $((6*7)) > /app/answer.txt\n"), action("", done=True)]


@pytest.fixture
def hub():
    stand_in = HFJobsStandIn().start()  # its whoami answers the sign-in
    stand_in.add_user(VISITOR, "alice")
    yield stand_in
    stand_in.stop()


@pytest.fixture
def router():
    stand_in = ModelStandIn(script(), key=VISITOR).start()  # Inference Providers' router takes the visitor's token
    yield stand_in
    stand_in.stop()


@pytest.fixture
def endpoint():
    stand_in = ModelStandIn(script(), key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def three_app(make_config, redis_client, tmp_path, hub, router):
    folder = tmp_path / "source"
    write_tasks(folder)
    app = create_app(make_config(RLX_SOURCE=str(folder), HF_ENDPOINT=hub.url, HF_ROUTER_URL=router.url))
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, DATASET)
    return app


@pytest.fixture
def workers(three_app, redis_client):
    processes = [start_worker(three_app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1"}) for _ in range(2)]
    yield processes
    stop_all(processes)


def start_batch(client, **form):
    data = {"agent": "terminus-2", "visibility": "private", "cap": "2", **form}
    return client.post(f"/d/{DATASET}/batch", data=data, headers=OURS)


def batch_id_of(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return re.search(r"/b/([a-z0-9]{12})$", response.headers["Location"]).group(1)


def wait_for_batch(app, client, batch_id: str, timeout: float = 400) -> str:
    wait_or_fail(lambda: "hx-trigger" not in client.get(f"/b/{batch_id}/progress").get_data(as_text=True),
                 f"the batch to finish within {timeout} s", timeout, every=0.5)
    return client.get(f"/b/{batch_id}").get_data(as_text=True)


def runs_of(app, batch_id: str):
    with app.app_context():
        store = app.extensions["rlx.store"]
        batch = batches.load(store, batch_id)
        return batch, [record.load(store, run_id) for run_id in batch.run_ids]


def leaks(app, *secrets: str) -> list[str]:
    storage = app.config["RLX"].storage_dir
    return [str(p) for p in storage.rglob("*") if p.is_file() and any(s.encode() in p.read_bytes() for s in secrets)]


def test_a_terminus_2_batch_on_the_visitors_endpoint_ends_with_rewards_and_keeps_no_key(three_app, endpoint,
                                                                                      workers, redis_client):
    client = three_app.test_client()
    batch_id = batch_id_of(start_batch(client, model=endpoint.model, endpoint=endpoint.url, api_key=KEY))
    assert redis_client.ttl(batch_secret_key(batch_id)) > 0  # held for the batch, with an expiry

    page = wait_for_batch(three_app, client, batch_id)
    batch, runs = runs_of(three_app, batch_id)
    assert batch.status == "finished" and len(runs) == 3
    assert [run.status for run in runs] == ["finished"] * 3, [run.outcome for run in runs]
    assert [run.rewards for run in runs] == [{"reward": 1.0}] * 3  # the agent typed what the model said
    assert all(run.agent == "terminus-2" and run.model == endpoint.model for run in runs)
    assert "terminus-2 with stand-in-model on 3 tasks" in page and "<strong>3 of 3 done</strong>" in page
    assert len(re.findall(r'<td class="batch-reward">1(\.0)?</td>', page)) == 3
    assert endpoint.requests and all(r["authorization"] == f"Bearer {KEY}" for r in endpoint.requests)

    assert redis_client.get(batch_secret_key(batch_id)) is None  # deleted when the batch ended
    assert all(redis_client.get(secret_key(run.id)) is None for run in runs)
    for fmt in ("csv", "jsonl", "parquet"):
        assert KEY.encode() not in client.get(f"/b/{batch_id}/results.{fmt}").get_data()
    assert leaks(three_app, KEY) == []  # the key is in no record, trial file, event or index of the store


def test_a_signed_in_visitor_runs_a_batch_through_inference_providers_with_their_token(three_app, router, workers,
                                                                                     redis_client):
    client = three_app.test_client()
    assert client.post("/signin/token", data={"token": VISITOR}, headers=OURS).status_code == 303
    batch_id = batch_id_of(start_batch(client, model=router.model, q="answer-0", cap="1"))

    page = wait_for_batch(three_app, client, batch_id)
    batch, runs = runs_of(three_app, batch_id)
    assert batch.status == "finished" and [run.rewards for run in runs] == [{"reward": 1.0}], told(three_app, runs[0])
    assert batch.model == runs[0].model == "stand-in-model:fastest"  # the router picks the fastest provider
    assert "terminus-2 with stand-in-model:fastest on 1 task" in page
    asked = [r for r in router.requests if r["path"].endswith("/chat/completions")]
    assert asked and all(r["authorization"] == f"Bearer {VISITOR}" for r in asked)
    assert {r["body"]["model"] for r in asked} == {"stand-in-model:fastest"}
    assert redis_client.get(batch_secret_key(batch_id)) is None
    assert leaks(three_app, VISITOR) == []


@pytest.mark.parametrize("form, sentence", [
    ({"endpoint": "http://93.184.216.34/v1"}, "must use https"),
    ({"endpoint": "https://10.0.0.8/v1"}, "private or local address"),
    ({"endpoint": "https://user:pw@93.184.216.34/v1"}, "must not carry credentials"),
    ({"endpoint": "", "api_key": ""}, "sign in to use Inference Providers"),  # not signed in, and no endpoint of their own
    ({"model": ""}, "terminus-2 needs a model"),
    ({"model": "a b"}, "terminus-2 needs a model"),
    ({"api_key": "sk-x", "endpoint": ""}, "An API key goes with an endpoint"),
    ({"agent": "terminus-3"}, "A batch runs one of"),
    ({"model": "m" * 201}, "at most 200 characters"),
    ({"api_key": "k" * 401}, "longer than 400"),
])
def test_a_forged_terminus_2_batch_form_is_refused_and_keeps_nothing(three_app, endpoint, redis_client, form,
                                                                      sentence):
    fields = {"model": endpoint.model, "endpoint": "https://93.184.216.34/v1", "api_key": KEY, **form}
    response = start_batch(three_app.test_client(), **fields)
    assert response.status_code == 400 and sentence in response.get_data(as_text=True), response.get_data(as_text=True)
    with three_app.app_context():
        folder = three_app.extensions["rlx.store"].runs_dir
    assert not (folder / "batches").exists() or not any((folder / "batches").iterdir())
    assert not list(redis_client.scan_iter("*:model"))  # no key kept for a batch that never started
