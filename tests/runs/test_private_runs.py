"""Runs on private and gated datasets, end to end on the Hub stand-in with a real worker: the run reads the
visitor's own index with their token (handed to the job through Redis, never written down), the worker checks the
token still opens the dataset, only its owner ever sees the run, and it stops being shown to them once the Hub
takes their access away."""

from __future__ import annotations

import os

import pytest

from rlx import create_app
from rlx.runs import read_token
from tests.processes import config_env, start_worker, wait_or_fail
from tests.runs_fixtures import PROBES, PROBES_FIXTURE
from tests.runs_helpers import wait_for
from tests.stand_ins.hub_fixtures import ALICE, BOB, PRIVATE_HARBOR
from tests.runs.test_run_privacy import first_task, signed_in

ORIGIN = {"Origin": "http://localhost"}
ALICES_OWN = "alice/private-evals"  # private, owned by alice: her token opens it, bob's does not
RUN_PATHS = ("/r/{id}", "/api/runs/{id}", "/r/{id}/events", "/compare?runs={id}")


def add_alices_own_dataset(hub) -> None:
    """A private dataset of alice's own holding the probe task `write-answer` (its verifier is plain shell)."""
    task = PROBES_FIXTURE / "datasets" / PROBES / "tasks" / "write-answer"
    files = {f"tasks/write-answer/{p.relative_to(task).as_posix()}": p.read_bytes()
             for p in task.rglob("*") if p.is_file()}
    files["README.md"] = "---\npretty_name: Alice's evals\ntags:\n- harbor\n---\n"
    hub.add_repo("dataset", ALICES_OWN, files, {"private": True})


@pytest.fixture
def hub_app(make_config, redis_client, hub):
    add_alices_own_dataset(hub)
    return create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))


@pytest.fixture
def hub_worker(hub_app, redis_url, redis_client, hub):
    config = hub_app.config["RLX"]
    process, _ = start_worker({**os.environ, **config_env(config, redis_url, HF_ENDPOINT=hub.url)}, redis_client)
    yield process
    process.terminate()
    process.wait(15)


def start(client, repo_id, ref, agent="oracle"):
    form = {"option": "local", "agent": agent, "visibility": "private", "model": "", "endpoint": "", "api_key": ""}
    response = client.post(f"/t/{repo_id}/{ref}/run", data=form, headers=ORIGIN)
    assert response.status_code == 303, response.get_data(as_text=True)[:400]
    return response.headers["Location"].rsplit("/", 1)[1]


def files_holding(root, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_oracle_on_alices_private_dataset_is_solved_and_seen_by_her_alone(hub_app, hub_worker, redis_client):
    alice = signed_in(hub_app, ALICE)
    ref = first_task(alice, ALICES_OWN)  # her first open indexes it on her shelf
    run_id = start(alice, ALICES_OWN, ref)
    run = wait_for(hub_app, run_id, timeout=120)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": 1.0}
    page = alice.get(f"/r/{run_id}").get_data(as_text=True)
    assert "write-answer" in page and alice.get(f"/api/runs/{run_id}").get_json()["reward"] == 1.0
    for other in (signed_in(hub_app, BOB), hub_app.test_client()):
        for path in RUN_PATHS:
            response = other.get(path.format(id=run_id))
            assert response.status_code == 404, (path, response.status_code)
            assert ALICES_OWN not in response.get_data(as_text=True)
    # the token went to the job through Redis and left with it: no file of the store, no page holds it
    assert redis_client.get(read_token.token_key(run_id)) is None
    assert files_holding(hub_app.config["RLX"].storage_dir, ALICE) == []
    assert ALICE not in page


def test_a_run_whose_visitor_lost_access_before_it_started_fails_saying_so(hub_app, hub, redis_client, make_config,
                                                                          redis_url):
    alice = signed_in(hub_app, ALICE)
    ref = first_task(alice, PRIVATE_HARBOR)
    run_id = start(alice, PRIVATE_HARBOR, ref, agent="nop")  # queued: no worker yet
    hub.add_token(ALICE, "alice")  # the dataset's owner takes her access away
    config = hub_app.config["RLX"]
    process, _ = start_worker({**os.environ, **config_env(config, redis_url, HF_ENDPOINT=hub.url)}, redis_client)
    try:
        run = wait_for(hub_app, run_id, timeout=60)
    finally:
        process.terminate()
        process.wait(15)
    assert run.status == "failed"
    assert "no longer" in run.outcome and "access" in run.outcome, run.outcome
    assert redis_client.get(read_token.token_key(run_id)) is None


def test_a_run_stops_being_shown_to_its_owner_once_she_loses_access(hub_app, hub):
    from rlx.runs import access

    alice = signed_in(hub_app, ALICE)
    ref = first_task(alice, PRIVATE_HARBOR)
    run_id = start(alice, PRIVATE_HARBOR, ref, agent="nop")
    assert alice.get(f"/r/{run_id}").status_code == 200
    hub.add_token(ALICE, "alice")  # access revoked on the Hub
    wait_or_fail(lambda: alice.get(f"/api/runs/{run_id}").status_code != 200,
                 "the run is still shown to a visitor who lost access to its dataset", access.ACCESS_FRESH_S + 10,
                 every=0.5)
    for path in RUN_PATHS:
        response = alice.get(path.format(id=run_id))
        assert response.status_code == 404, (path, response.status_code)
        assert PRIVATE_HARBOR not in response.get_data(as_text=True)


def test_a_run_recorded_public_on_a_private_dataset_reads_as_private(hub_app):
    """A record from before runs inherited their dataset's privacy (or of a dataset made private since)."""
    from rlx.runs import record, runs_db

    old = record.RunRecord(id=record.new_run_id(), env_id=PRIVATE_HARBOR, ref="secret-task", agent="nop",
                           visitor="hf:alice", visibility="public", status="finished", scored=True,
                           rewards={"reward": 1.0})
    with hub_app.app_context():
        store = hub_app.extensions["rlx.store"]
        record.save(store, old)
        runs_db.upsert(store, old)
    for other in (signed_in(hub_app, BOB), hub_app.test_client()):
        for path in RUN_PATHS:
            response = other.get(path.format(id=old.id))
            assert response.status_code == 404, (path, response.status_code)
            assert PRIVATE_HARBOR not in response.get_data(as_text=True)
    assert signed_in(hub_app, ALICE).get(f"/api/runs/{old.id}").status_code == 200


def test_a_batch_on_alices_private_dataset_offers_private_only_and_its_runs_are_solved(hub_app, hub_worker):
    from rlx.runs import batch as batches
    from tests.runs.test_batches import batch_id_of

    alice = signed_in(hub_app, ALICE)
    first_task(alice, ALICES_OWN)
    page = alice.get(f"/d/{ALICES_OWN}").get_data(as_text=True)
    form = page[page.index('class="batch-form"'):]
    form = form[:form.index("</form>")]
    assert '<option value="private">' in form and '<option value="public"' not in form
    response = alice.post(f"/d/{ALICES_OWN}/batch", headers=ORIGIN,
                          data={"agent": "oracle", "visibility": "public", "cap": "1"})  # forged: public
    batch_id = batch_id_of(response)
    with hub_app.app_context():
        store = hub_app.extensions["rlx.store"]
        batch = wait_or_fail(lambda: (found := batches.load(store, batch_id)).status != batches.RUNNING and found,
                             "the batch to finish", 120, every=0.2)
    assert batch.visibility == "private"
    (run_id,) = batch.run_ids
    assert wait_for(hub_app, run_id).rewards == {"reward": 1.0}
    for other in (signed_in(hub_app, BOB), hub_app.test_client()):
        for path in (f"/b/{batch_id}", f"/r/{run_id}"):
            assert other.get(path).status_code == 404, path
    assert files_holding(hub_app.config["RLX"].storage_dir, ALICE) == []
