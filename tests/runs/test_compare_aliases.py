"""Comparing two sets that ran the same tasks under two names (a MiMo release's rows and their Harbor
conversion): each of B's tasks is read as its alias among A's, so the tasks pair up; B's tasks with no alias
there are listed as not paired, and two environments that share no task are still refused with a sentence."""

from __future__ import annotations

import pytest

from rlx.runs import record, runs_db
from rlx.runs.record import RunRecord
from tests.conftest import index_now
from tests.runs_helpers import SCIENCE

RELEASE = "rlx-examples/mimo-release"
TWIN = "rlx-examples/mimo-release-harbor"
# The conversion's task.toml files name their source rows' instance ids (examples/…/mimo-release-harbor/*/task.toml:
# mimo_instance_id), and those rows sit in the release's parquet files at these places.
SAME_TASKS = {"music-gk-0812": "music/train/1", "code-000101": "code/train/0"}


@pytest.fixture
def twins_app(indexed_app):
    index_now(indexed_app, RELEASE)
    index_now(indexed_app, TWIN)
    return indexed_app


def write_batch(app, env_id: str, solved: dict[str, bool]) -> str:
    """A finished public batch, its runs written as the job writes them (record and index row)."""
    batch_id = record.new_run_id()
    with app.app_context():
        store = app.extensions["rlx.store"]
        for ref, ok in solved.items():
            run = RunRecord(id=record.new_run_id(), env_id=env_id, ref=ref, agent="terminus-2", model="m",
                            visibility="public", status="finished", scored=True,
                            rewards={"reward": 1.0 if ok else 0.0}, finished_at=record.now_iso(), batch=batch_id)
            record.save(store, run)
            runs_db.upsert(store, run)
    return batch_id


def compared(client, a: str, b: str) -> dict:
    answer = client.get(f"/compare/sets.json?a=batch:{a}&b=batch:{b}")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    return {row["task"]: row["category"] for row in body["tasks"]} | {"n": body["n"]}


def test_two_sets_on_twin_environments_are_compared_task_by_task(twins_app):
    on_twin = write_batch(twins_app, TWIN, {"music-gk-0812": True, "code-000101": False})
    on_release = write_batch(twins_app, RELEASE, {"music/train/1": False, "code/train/0": False,
                                                  "music/train/0": True})  # this row has no Harbor twin
    client = twins_app.test_client()

    twin_first = compared(client, on_twin, on_release)
    assert twin_first == {"music-gk-0812": "only A", "code-000101": "neither", "n": 2,
                          f"{RELEASE} · music/train/0": "not paired"}
    release_first = compared(client, on_release, on_twin)  # the other way round, on the release's names
    assert release_first == {"music/train/1": "only B", "code/train/0": "neither", "music/train/0": "not paired",
                             "n": 2}
    assert set(SAME_TASKS.values()) <= set(release_first) and set(SAME_TASKS) <= set(twin_first)

    page = client.get(f"/compare/sets?a=batch:{on_twin}&b=batch:{on_release}").get_data(as_text=True)
    assert f"B ran on {RELEASE}: its 2 tasks that are the same task as one of {TWIN}" in page


def test_sets_on_environments_that_share_no_task_are_refused_with_a_sentence(twins_app):
    on_twin = write_batch(twins_app, TWIN, {"music-gk-0812": True})
    elsewhere = write_batch(twins_app, SCIENCE, {"chemistry/molar-mass-table": True})
    answer = twins_app.test_client().get(f"/compare/sets?a=batch:{on_twin}&b=batch:{elsewhere}")
    assert answer.status_code == 400
    assert "none of B&#39;s tasks is the same task" in answer.get_data(as_text=True) or \
        "none of B's tasks is the same task" in answer.get_data(as_text=True)
