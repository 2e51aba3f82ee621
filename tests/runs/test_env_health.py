"""An environment's health check: oracle twice and nop once per runnable task, on the bulk queue, once per
revision; a task whose verifier accepts anything, one whose solution fails and one the sandbox cannot build each
get their verdict on the environment page and in the API, beside a sound one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rq.job import Job

from rlx import create_app
from rlx.runs import batch as batches
from rlx.runs import health
from tests.conftest import index_now
from tests.processes import stop_all, wait_or_fail
from tests.runs_fixtures import start_worker
from tests.runs.test_run_pages import OURS, needs_bwrap
from tests.runs_helpers import PLAIN_IMAGE, WROTE_DONE, write_small_task

DATASET = "rlx-tests/health"

TASKS = {  # name: (solution, verifier, Dockerfile)
    "sound": ("echo done > /app/out.txt", WROTE_DONE, PLAIN_IMAGE),
    "accepts-anything": ("echo done > /app/out.txt", "echo 1", PLAIN_IMAGE),
    "broken-solution": ("echo wrong > /app/out.txt", WROTE_DONE, PLAIN_IMAGE),
    "needs-a-build-stage": ("echo done > /app/out.txt", WROTE_DONE,
                            PLAIN_IMAGE + "COPY --from=builder /out /app/out\n"),
}


def write_tasks(folder: Path) -> None:
    for name, (solution, verifier, dockerfile) in TASKS.items():
        write_small_task(folder / "datasets" / DATASET / "tasks" / name, solution, verifier, dockerfile)


@pytest.fixture
def health_app(make_config, redis_client, tmp_path):
    write_tasks(tmp_path / "source")
    app = create_app(make_config(RLX_SOURCE=str(tmp_path / "source")))
    index_now(app, DATASET)
    return app


def verdict_rows(html: str) -> dict[str, str]:
    rows = re.findall(r'<tr class="verdict-[a-z-]+"><td><a href="[^"]+">([^<]+)</a></td>'
                      r'<td class="health-verdict">([^<]+)</td>', html)
    return dict(rows)


@needs_bwrap
def test_a_health_check_gives_each_broken_task_its_verdict(health_app, redis_client):
    client = health_app.test_client()
    page = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert "Check this environment&#39;s health" in page or "Check this environment's health" in page
    assert client.post(f"/d/{DATASET}/health", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    started = client.post(f"/d/{DATASET}/health", headers=OURS)
    assert started.status_code == 303 and started.headers["Location"].endswith(f"/d/{DATASET}#health")
    revision = client.get(f"/api/env/{DATASET}").get_json()["revision"]
    with health_app.app_context():
        store = health_app.extensions["rlx.store"]
        check = health.find(store, DATASET, revision)
        batch = batches.load(store, check.batch_id)
    assert batch.agents.count("oracle") == 6 and batch.agents.count("nop") == 3
    assert {Job.fetch(f"run-{run_id}", connection=redis_client).origin for run_id in batch.run_ids} == {"bulk"}
    assert "needs-a-build-stage" not in batch.refs  # never started: the sandbox cannot build it
    running = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert "The check is running" in running and 'hx-trigger="every 2s"' in running
    assert set(verdict_rows(running).values()) == {"not checked", "cannot run here"}  # every task listed at once
    assert len(verdict_rows(running)) == 4

    workers = [start_worker(health_app, redis_client) for _ in range(2)]
    try:
        with health_app.app_context():
            wait_or_fail(lambda: batches.load(store, check.batch_id).status != "running",
                         "the health check to finish in 240 s", 240, every=0.3)
    finally:
        stop_all(workers)

    assert client.post(f"/d/{DATASET}/health", headers=OURS).status_code == 303  # once per revision
    with health_app.app_context():
        assert health.find(store, DATASET, revision).batch_id == check.batch_id
    page = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert verdict_rows(page) == {"sound": "sound", "accepts-anything": "nop passes",
                                  "broken-solution": "oracle fails", "needs-a-build-stage": "cannot run here"}
    assert "<strong>sound</strong>: 1 (25%)" in page and "The check is running" not in page
    assert "COPY --from=builder copies from another image" in page  # why it cannot run here, as its task page says
    answer = client.get(f"/api/env/{DATASET}/health").get_json()
    assert answer["verdicts"] == {"sound": 1, "nop passes": 1, "oracle fails": 1, "cannot run here": 1}
    with health_app.app_context():
        assert health.kept(store, DATASET, revision) == answer["verdicts"]  # kept per revision in the runs index


def test_two_oracle_runs_that_differ_make_a_task_flaky():
    def row(i, agent, kind):
        return {"id": str(i), "agent": agent, "kind": kind, "reason": "reward 1" if kind == "solved" else "reward 0",
                "status": "finished", "scored": 1, "reward": 1.0 if kind == "solved" else 0.0}

    assert health.verdict_of([row(1, "oracle", "solved"), row(2, "nop", "failed"),
                              row(3, "oracle", "failed")])["verdict"] == "flaky"
    assert health.verdict_of([row(1, "oracle", "solved"), row(2, "nop", "failed")])["verdict"] == "not checked"


def test_a_check_that_left_tasks_unchecked_can_be_run_again_and_only_then(health_app, redis_client):
    """Its runs lost (stopped here; a Redis reset in a demo does the same): the ended check offers "Check again",
    which starts a new batch for the same revision; while that one runs, asking again changes nothing."""
    client = health_app.test_client()
    assert client.post(f"/d/{DATASET}/health", headers=OURS).status_code == 303
    revision = client.get(f"/api/env/{DATASET}").get_json()["revision"]
    with health_app.app_context():
        store = health_app.extensions["rlx.store"]
        first = health.find(store, DATASET, revision)
    running = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert "Check again" not in running
    batch_page = client.get(f"/b/{first.batch_id}").get_data(as_text=True)  # its runs: which agent each is
    assert f"<h1>Health check of {DATASET}: 3 tasks</h1>" in batch_page
    cells = re.findall(r'<tr class="batch-row[^"]*">\s*<td>(?:<a [^>]+>)?([^<]+)(?:</a>)?</td>\s*<td>([^<]+)</td>', batch_page)
    assert sorted(cells) == sorted((task, agent) for task in ("sound", "accepts-anything", "broken-solution")
                                   for agent in ("oracle", "nop", "oracle"))
    assert client.post(f"/d/{DATASET}/health", headers=OURS, data={"again": "1"}).status_code == 303
    with health_app.app_context():
        assert health.find(store, DATASET, revision).batch_id == first.batch_id  # still running: the same check
        batches.stop(store, redis_client, first.batch_id)
    ended = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert set(verdict_rows(ended).values()) == {"not checked", "cannot run here"} and "Check again" in ended
    assert client.post(f"/d/{DATASET}/health", headers={**OURS, "Sec-Fetch-Site": "cross-site"},
                       data={"again": "1"}).status_code == 403
    assert client.post(f"/d/{DATASET}/health", headers=OURS).status_code == 303  # without "again": once per revision
    with health_app.app_context():
        assert health.find(store, DATASET, revision).batch_id == first.batch_id
    assert client.post(f"/d/{DATASET}/health", headers=OURS, data={"again": "1"}).status_code == 303
    with health_app.app_context():
        second = health.find(store, DATASET, revision)
        assert second.batch_id != first.batch_id
        assert batches.load(store, second.batch_id).status == "running"
    again = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert "The check is running" in again and "Check again" not in again
