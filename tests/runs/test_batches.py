"""Batch evaluations: one agent over a dataset's tasks through real workers, at most `cap` runs at once, with
the results table, reward histogram and exports a visitor sees; forged batch forms refused."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import time
from datetime import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from rq import Worker

from rlx import create_app
from rlx.runs import batch as batches
from rlx.runs.batch_record import batch_path
from rlx.runs import record
from tests import browser_audit
from tests.conftest import index_now
from tests.processes import stop_all, wait_or_fail
from tests.runs_fixtures import start_worker
from tests.servers import chromium, needs_chromium

DATASET = "rlx-tests/twenty"
TASKS = 20
UNSCORED = {18, 19}  # their verifier writes no reward: "not scored", never 0


def reward_of(i: int) -> float:
    return (i % 5) / 4  # 0, 0.25, 0.5, 0.75, 1 (four tasks each, before the unscored ones)


def write_tasks(folder: Path) -> None:
    """20 tiny tasks: the oracle writes a file, the verifier writes the task's fixed reward (or none)."""
    for i in range(TASKS):
        task = folder / "datasets" / DATASET / "tasks" / f"{'even' if i % 2 == 0 else 'odd'}-{i:02d}"
        (task / "environment").mkdir(parents=True)
        (task / "solution").mkdir()
        (task / "tests").mkdir()
        (task / "task.toml").write_text(
            f'schema_version = "1.1"\n[task]\nname = "rlx-tests/t{i:02d}"\n[verifier]\ntimeout_sec = 20.0\n'
            '[agent]\ntimeout_sec = 60.0\n[environment]\nnetwork_mode = "no-network"\n')
        (task / "instruction.md").write_text(f"Write done to /app/out.txt (task {i}).\n")
        (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
        (task / "solution" / "solve.sh").write_text("#!/usr/bin/env bash\necho done > /app/out.txt\n")
        verify = "mkdir -p /logs/verifier\n" + ("" if i in UNSCORED else
                                               f"echo {reward_of(i)} > /logs/verifier/reward.txt\n")
        (task / "tests" / "test.sh").write_text("#!/usr/bin/env bash\n" + verify)
        for script in (task / "solution" / "solve.sh", task / "tests" / "test.sh"):
            script.chmod(0o755)


@pytest.fixture
def twenty_app(make_config, redis_client, tmp_path):
    folder = tmp_path / "source"
    write_tasks(folder)
    app = create_app(make_config(RLX_SOURCE=str(folder)))
    index_now(app, DATASET)
    return app


@pytest.fixture
def three_workers(twenty_app, redis_client):
    """Three workers, so a cap of 2 is the batch's doing and not a shortage of workers."""
    processes = [start_worker(twenty_app, redis_client) for _ in range(3)]
    yield processes
    stop_all(processes)


def start_batch(client, **form):
    return client.post(f"/d/{DATASET}/batch", data={"agent": "oracle", "visibility": "private", "cap": "2", **form},
                       headers={"Origin": "http://localhost"})  # our own pages send it with every form post


def batch_id_of(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return re.search(r"/b/([a-z0-9]{12})$", response.headers["Location"]).group(1)


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def most_at_once(intervals) -> int:
    """The most intervals open at one instant; an interval ending when another begins does not overlap it."""
    points = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals],
                    key=lambda p: (p[0], p[1]))
    open_now = most = 0
    for _, step in points:
        open_now += step
        most = max(most, open_now)
    return most


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")
def test_a_batch_of_twenty_oracle_runs_completes_two_at_a_time_with_table_plot_and_exports(twenty_app, three_workers):
    client = twenty_app.test_client()
    batch_id = batch_id_of(start_batch(client))
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert 'hx-trigger="every 2s"' in page and 'http-equiv="refresh"' in page  # live, with JS on or off

    def finished_progress() -> str | None:
        text = client.get(f"/b/{batch_id}/progress").get_data(as_text=True)
        return None if "hx-trigger" in text else text

    progress = wait_or_fail(finished_progress, "the batch to finish within 10 minutes", 600, every=0.5)
    assert f"<strong>{TASKS} of {TASKS} done</strong>" in progress

    with twenty_app.app_context():
        store = twenty_app.extensions["rlx.store"]
        batch = batches.load(store, batch_id)
        runs = [record.load(store, run_id) for run_id in batch.run_ids]
    assert batch.status == "finished" and len(runs) == TASKS
    assert all(run.status == "finished" for run in runs), [run.outcome for run in runs if run.status != "finished"]
    # The cap, from the records: from being queued to ending, never more than 2 of the batch's runs at once.
    assert most_at_once([(parse_time(r.created_at), parse_time(r.finished_at)) for r in runs]) <= 2
    assert most_at_once([(parse_time(r.started_at), parse_time(r.finished_at)) for r in runs]) == 2  # and it used both

    expected = {f"{'even' if i % 2 == 0 else 'odd'}-{i:02d}": (None if i in UNSCORED else reward_of(i))
                for i in range(TASKS)}
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert 'http-equiv="refresh"' not in page  # done: the page stops refreshing
    table = dict(re.findall(r'<a href="/r/[a-z0-9]{12}">([a-z]+-\d\d)</a></td>\s*<td>Finished</td>\s*'
                            r'<td class="batch-reward">(.*?)</td>', page))
    assert {ref: (None if "not scored" in cell else float(cell)) for ref, cell in table.items()} == expected
    bars = [int(n) for n in re.findall(r'data-count="(\d+)"', page)]
    assert len(bars) == 10 and sum(bars) == TASKS - len(UNSCORED)
    assert bars[0] == 4 and bars[-1] == 3  # rewards 0 (tasks 0, 5, 10, 15) and 1 (4, 9, 14; 19 is unscored)
    assert "2 runs not scored, left out of the plot" in page

    rows = list(csv.DictReader(io.StringIO(client.get(f"/b/{batch_id}/results.csv").get_data(as_text=True))))
    assert {r["task"]: (float(r["reward"]) if r["reward"] else None) for r in rows} == expected
    lines = [json.loads(line) for line in client.get(f"/b/{batch_id}/results.jsonl").get_data(as_text=True).splitlines()]
    assert {r["task"]: r["reward"] for r in lines} == expected
    table = pq.read_table(io.BytesIO(client.get(f"/b/{batch_id}/results.parquet").get_data()))
    assert dict(zip(table.column("task").to_pylist(), table.column("reward").to_pylist())) == expected
    assert table.column("scored").to_pylist().count(False) == len(UNSCORED)

    assert twenty_app.test_client().get(f"/b/{batch_id}").status_code == 404  # private to whoever started it


def test_a_filtered_batch_covers_only_the_matching_tasks_and_starts_no_more_than_its_cap(twenty_app):
    client = twenty_app.test_client()
    batch_id = batch_id_of(start_batch(client, q="odd", cap="1"))
    with twenty_app.app_context():
        batch = batches.load(twenty_app.extensions["rlx.store"], batch_id)
    assert batch.refs == [f"odd-{i:02d}" for i in range(1, TASKS, 2)]
    assert len(batch.run_ids) == 1  # no worker here: the one allowed run waits, the rest are not started
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert "0 of 10 done" in page and "9 waiting" in page


@pytest.mark.parametrize("form, sentence", [
    ({"agent": "terminus-3"}, "A batch runs one of oracle, nop, terminus-2"),
    ({"agent": "terminus-2"}, "terminus-2 needs a model"),
    ({"agent": "terminus-2", "model": "m", "endpoint": "http://93.184.216.34/v1"}, "must use https"),
    ({"agent": "terminus-2", "model": "m", "endpoint": "https://192.168.1.9/v1"}, "private or local address"),
    ({"cap": "5"}, "from 1 to 4"),
    ({"cap": "-1"}, "from 1 to 4"),
    ({"cap": "99999999999999999999"}, "from 1 to 4"),
    ({"visibility": "everyone"}, "Visibility must be"),
    ({"visitor": "s:someone-else"}, "does not take: &#39;visitor&#39;"),
    ({"refs": "even-00"}, "does not take: &#39;refs&#39;"),
    ({"q": "nothing-matches-this"}, "No task matches"),
    ({"q": "x" * 201}, "too long"),
])
def test_a_forged_batch_form_is_refused_and_starts_nothing(twenty_app, form, sentence):
    response = start_batch(twenty_app.test_client(), **form)
    assert response.status_code == 400 and sentence in response.get_data(as_text=True)
    with twenty_app.app_context():
        folder = twenty_app.extensions["rlx.store"].runs_dir
    assert not (folder / "batches").exists() or not any((folder / "batches").iterdir())
    assert not any(p.is_dir() and record.valid_run_id(p.name) for p in folder.glob("*")) if folder.exists() else True


def test_a_batch_form_from_another_site_is_refused(twenty_app):
    response = twenty_app.test_client().post(f"/d/{DATASET}/batch", data={"agent": "oracle", "cap": "1"},
                                              headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403


def test_stopping_a_batch_cancels_its_queued_runs_starts_no_more_and_the_page_says_stopped(twenty_app):
    client = twenty_app.test_client()
    batch_id = batch_id_of(start_batch(client, cap="2"))  # no worker: its first two runs wait in the queue
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert f'action="/b/{batch_id}/stop"' in page and "Stop this batch" in page

    assert twenty_app.test_client().post(f"/b/{batch_id}/stop", headers={"Origin": "http://localhost"}
                                         ).status_code == 404  # another browser does not even see it
    assert client.post(f"/b/{batch_id}/stop", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    response = client.post(f"/b/{batch_id}/stop", headers={"Origin": "http://localhost"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/b/{batch_id}")

    page = client.get(f"/b/{batch_id}").get_data(as_text=True)  # a look at the page would start more runs
    with twenty_app.app_context():
        store = twenty_app.extensions["rlx.store"]
        batch = batches.load(store, batch_id)
        runs = [record.load(store, run_id) for run_id in batch.run_ids]
    assert batch.status == "stopped" and len(runs) == 2
    assert [run.status for run in runs] == ["stopped", "stopped"]
    assert "<strong>Stopped</strong>" in page and "Stop this batch" not in page
    assert 'http-equiv="refresh"' not in page and "hx-trigger" not in page  # nothing left to watch
    assert page.count("<td>Not started</td>") == TASKS - 2 and page.count("<td>Stopped</td>") == 2


def batch_state(app, redis_client, batch_id: str) -> dict:
    """Everything a look at a batch could change: its record's bytes, its runs in the store, the queued jobs, and
    every Redis key that names it (its lock, secrets, the running set)."""
    with app.app_context():
        store = app.extensions["rlx.store"]
        runs_dir = store.runs_dir
        raw = batch_path(store, batch_id).read_bytes()
    keys = sorted(k.decode() for k in redis_client.scan_iter("rlx:*") if batch_id.encode() in k or b"batches" in k)
    return {"record": raw, "run_dirs": sorted(p.name for p in runs_dir.iterdir() if record.valid_run_id(p.name)),
            "queued": {q: redis_client.llen(f"rq:queue:{q}") for q in ("rollouts", "bulk")},
            "keys": {k: redis_client.dump(k) for k in keys if not k.endswith(":swept")}}


def test_a_look_at_a_held_back_batch_starts_nothing_and_a_worker_starts_its_runs(twenty_app, redis_client):
    """A batch the server's cap held back is moved on by the workers, never by a GET of its page or its runs'."""
    from rlx.jobs.queues import QUEUES
    from workers.rq_worker import build_worker

    twenty_app.config["RLX_MAX_ACTIVE_RUNS"] = 2  # the server runs 2 rollouts at once
    first, second = twenty_app.test_client(), twenty_app.test_client()
    second.environ_base["REMOTE_ADDR"] = "192.0.2.2"
    full = batch_id_of(start_batch(first, cap="2"))  # no worker: its two runs hold the server's two places
    held = batch_id_of(start_batch(second, cap="2"))
    with twenty_app.app_context():
        assert batches.load(twenty_app.extensions["rlx.store"], held).run_ids == []
    first.post(f"/b/{full}/stop", headers={"Origin": "http://localhost"})  # room again, and nobody has looked

    with twenty_app.app_context():
        stopped_run = batches.load(twenty_app.extensions["rlx.store"], full).run_ids[0]
    before = batch_state(twenty_app, redis_client, held)
    for client, path in ((second, f"/b/{held}/progress"), (first, f"/r/{stopped_run}"),
                         (first, f"/api/runs/{stopped_run}")):
        assert client.get(path).status_code == 200
    page = second.get(f"/b/{held}").get_data(as_text=True)
    assert "0 of 20 done" in page and "20 waiting" in page
    assert batch_state(twenty_app, redis_client, held) == before

    build_worker(twenty_app, QUEUES, name="test-upkeep").clean_registries()  # a worker's upkeep, between jobs
    with twenty_app.app_context():
        assert len(batches.load(twenty_app.extensions["rlx.store"], held).run_ids) == 2
    assert "18 waiting" in second.get(f"/b/{held}").get_data(as_text=True)


def test_a_running_batch_goes_on_after_redis_is_reset(twenty_app, redis_client):
    """An embedded Redis restarted with the app forgets which batches run, and their queued jobs: the workers'
    next upkeep finds the batch in the store again and starts its next runs (the lost ones end as infrastructure
    errors, not as the agent's failures)."""
    from rlx.jobs.queues import QUEUES
    from workers.rq_worker import build_worker

    client = twenty_app.test_client()
    batch_id = batch_id_of(start_batch(client, q="odd", cap="1"))
    with twenty_app.app_context():
        assert len(batches.load(twenty_app.extensions["rlx.store"], batch_id).run_ids) == 1
    redis_client.flushdb()  # what a restart of the embedded Redis leaves
    build_worker(twenty_app, QUEUES, name="test-upkeep").clean_registries()  # a worker's upkeep, between jobs
    with twenty_app.app_context():
        store = twenty_app.extensions["rlx.store"]
        lost = record.load(store, batches.load(store, batch_id).run_ids[0])
        assert lost.status == "failed" and "disappeared" in (lost.outcome or "")
        assert len(batches.load(store, batch_id).run_ids) == 2  # the next run started, with nobody looking
    page = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert "1 of 10 done" in page and "8 waiting" in page


def test_a_visitor_has_at_most_two_batches_running(twenty_app):
    client = twenty_app.test_client()
    first = batch_id_of(start_batch(client, cap="1"))
    batch_id_of(start_batch(client, cap="1"))
    third = start_batch(client, cap="1")
    assert third.status_code == 429 and "already have 2 batches running" in third.get_data(as_text=True)
    assert third.headers["Retry-After"]
    with twenty_app.app_context():
        folder = twenty_app.extensions["rlx.store"].runs_dir / "batches"
    assert len(list(folder.iterdir())) == 2  # the refused one wrote nothing
    other = twenty_app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.2"  # another person: the cap counts addresses, not cookies
    assert batch_id_of(start_batch(other, cap="1"))  # another visitor has their own two

    client.post(f"/b/{first}/stop", headers={"Origin": "http://localhost"})
    assert batch_id_of(start_batch(client, cap="1"))  # a stopped batch frees its place


def test_a_run_an_admin_withdrew_leaves_the_public_batch_page_and_its_exports_but_not_its_owners(twenty_app):
    from rlx.admin.rollouts import set_withdrawn
    from rlx.runs import runs_db
    from rlx.runs.batch import BatchRecord
    from rlx.runs.record import RunRecord

    owner = twenty_app.test_client()
    probe = batch_id_of(start_batch(owner, q="even-00", cap="1"))  # gives this browser its owner id
    with twenty_app.app_context():
        store = twenty_app.extensions["rlx.store"]
        visitor = batches.load(store, probe).visitor
        runs = [RunRecord(id=record.new_run_id(), env_id=DATASET, ref=ref, agent="oracle", visitor=visitor,
                          visibility="public", status="finished", scored=True, rewards={"reward": reward},
                          finished_at=record.now_iso()) for ref, reward in (("odd-01", 0.25), ("odd-03", 0.75))]
        for run in runs:
            record.save(store, run)
            runs_db.upsert(store, run)
        batch = BatchRecord(id=record.new_run_id(), env_id=DATASET, agent="oracle", refs=["odd-01", "odd-03"],
                            cap=1, visitor=visitor, visibility="public", run_ids=[r.id for r in runs],
                            status="finished")
        batches.save(store, batch)
        set_withdrawn(store, runs[1].id, withdrawn=True)  # what an admin's "take off community" does

    anyone = twenty_app.test_client()
    page = anyone.get(f"/b/{batch.id}").get_data(as_text=True)
    assert f"/r/{runs[0].id}" in page and ">odd-01<" in page
    assert "<td>Finished</td>" in page and "<td>finished</td>" not in page  # capitalised as on the run page
    assert runs[1].id not in page and "odd-03" not in page and "0.75" not in page
    assert "1 run of this batch was taken off community by an admin and is not shown" in page
    for fmt in ("csv", "jsonl"):
        body = anyone.get(f"/b/{batch.id}/results.{fmt}").get_data(as_text=True)
        assert "odd-01" in body and "odd-03" not in body and runs[1].id not in body, fmt
    table = pq.read_table(io.BytesIO(anyone.get(f"/b/{batch.id}/results.parquet").get_data()))
    assert table.column("task").to_pylist() == ["odd-01"]

    mine = owner.get(f"/b/{batch.id}").get_data(as_text=True)  # its owner still sees their own run
    assert f"/r/{runs[1].id}" in mine and "taken off community" not in mine
    rows = list(csv.DictReader(io.StringIO(owner.get(f"/b/{batch.id}/results.csv").get_data(as_text=True))))
    assert [r["task"] for r in rows] == ["odd-01", "odd-03"]


@needs_chromium
def test_the_progress_bar_and_reward_plot_fit_the_window_at_phone_and_desktop_widths(twenty_app):
    """The bar spans the progress section (no fixed browser-default width) and the plot shrinks with the window."""
    from rlx.runs import runs_db
    from rlx.runs.batch import BatchRecord
    from rlx.runs.record import RunRecord

    refs = [f"odd-{i:02d}" for i in range(1, 20, 2)]
    with twenty_app.app_context():
        store = twenty_app.extensions["rlx.store"]
        runs = [RunRecord(id=record.new_run_id(), env_id=DATASET, ref=ref, agent="oracle", visibility="public",
                          status="finished", scored=True, rewards={"reward": reward_of(i)},
                          finished_at=record.now_iso()) for i, ref in enumerate(refs[:6])]
        for run in runs:
            record.save(store, run)
            runs_db.upsert(store, run)
        batch = BatchRecord(id=record.new_run_id(), env_id=DATASET, agent="oracle", refs=refs, cap=1,
                            visibility="public", run_ids=[r.id for r in runs], status="running")
        batches.save(store, batch)
    html = twenty_app.test_client().get(f"/b/{batch.id}").get_data(as_text=True)  # its CSS is inlined
    assert 'class="batch-histogram"' in html
    with chromium() as browser:
        for width in (390, 1280):
            page = browser.new_page(viewport={"width": width, "height": 900}, java_script_enabled=False)
            page.set_content(html)
            bar, section = page.evaluate("""() => [document.querySelector('#batch-progress progress'),
                document.querySelector('#batch-progress')].map(el => el.getBoundingClientRect().width)""")
            assert bar == section, f"{width} px: the bar is {bar} px wide in a {section} px section"
            assert browser_audit.overflow(page) == [], width
            page.close()


SLOW = "rlx-tests/slow"
SLEEP = "sleep 613"  # the oracle's command, unique enough to find among the host's processes


@pytest.fixture
def slow_app(make_config, redis_client, tmp_path):
    """Two tasks whose oracle sleeps ten minutes: a run of them is surely running when the batch is stopped."""
    folder = tmp_path / "source"
    for i in range(2):
        task = folder / "datasets" / SLOW / "tasks" / f"slow-{i}"
        for part in ("environment", "solution", "tests"):
            (task / part).mkdir(parents=True)
        (task / "task.toml").write_text(
            f'schema_version = "1.1"\n[task]\nname = "rlx-tests/slow-{i}"\n[verifier]\ntimeout_sec = 20.0\n'
            '[agent]\ntimeout_sec = 900.0\n[environment]\nnetwork_mode = "no-network"\n')
        (task / "instruction.md").write_text("Wait.\n")
        (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
        (task / "solution" / "solve.sh").write_text(f"#!/usr/bin/env bash\n{SLEEP}\n")
        (task / "tests" / "test.sh").write_text("#!/usr/bin/env bash\nmkdir -p /logs/verifier\necho 1 > "
                                                "/logs/verifier/reward.txt\n")
        for script in (task / "solution" / "solve.sh", task / "tests" / "test.sh"):
            script.chmod(0o755)
    app = create_app(make_config(RLX_SOURCE=str(folder)))
    index_now(app, SLOW)
    return app


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")
def test_stopping_a_batch_stops_its_running_run_and_leaves_no_sandbox(slow_app, redis_client):
    from tests.processes import alive
    from tests.runs_fixtures import processes_matching, sandboxes_of

    worker = start_worker(slow_app, redis_client)
    try:
        client = slow_app.test_client()
        response = client.post(f"/d/{SLOW}/batch", data={"agent": "oracle", "visibility": "private", "cap": "1"},
                               headers={"Origin": "http://localhost"})
        batch_id = batch_id_of(response)
        wait_or_fail(lambda: processes_matching(SLEEP),  # the oracle is at work inside its sandbox
                     "the batch's first run did not start within 3 minutes", 180, every=0.2)
        with slow_app.app_context():
            run_id = batches.load(slow_app.extensions["rlx.store"], batch_id).run_ids[0]
            assert record.load(slow_app.extensions["rlx.store"], run_id).status == "running"
        sandbox = sandboxes_of(worker.pid) | set(processes_matching(SLEEP))
        assert sandboxes_of(worker.pid), "no sandbox under the worker"

        response = client.post(f"/b/{batch_id}/stop", headers={"Origin": "http://localhost"})
        assert response.status_code == 303
        with slow_app.app_context():
            store = slow_app.extensions["rlx.store"]
            wait_or_fail(lambda: not record.load(store, run_id).active,
                         "the running run was not stopped within 2 minutes", 120, every=0.2)
            run, batch = record.load(store, run_id), batches.load(store, batch_id)
        assert run.status == "stopped" and run.reward is None and "Stopped" in run.outcome
        assert batch.status == "stopped" and batch.run_ids == [run_id]  # the second task never started
        # the job's end kills the sandbox before it writes the record
        wait_or_fail(lambda: not any(alive(pid) for pid in sandbox),
                     f"the stopped run's sandbox is still there: {sandbox}", 10, every=0.1)
        assert sandboxes_of(worker.pid) == set() and processes_matching(SLEEP) == []
        assert not list(slow_app.config["RLX"].cache_dir.glob(f"rlx-run-{run_id}-*"))  # its task copy, removed
        # the job writes the record, then returns: the worker goes idle after
        wait_or_fail(lambda: [w.get_state() for w in Worker.all(connection=redis_client)] == ["idle"],
                     "the worker is still busy after its run was stopped", 15, every=0.1)
        page = client.get(f"/b/{batch_id}").get_data(as_text=True)
        assert "<strong>Stopped</strong>" in page and "hx-trigger" not in page
        assert re.search(rf'<a href="/r/{run_id}">slow-0</a></td>\s*<td>Stopped</td>', page)
        assert re.search(r"<td>slow-1</td>\s*<td>Not started</td>", page)
    finally:
        worker.terminate()
        worker.wait(15)


def test_the_reward_histogram_has_counts_on_its_bars_and_two_labelled_axes():
    from rlx.runs.batch_results import ResultRow, histogram

    rows = [ResultRow(task=f"t{i}", run_id=None, status="finished", scored=True, reward=r, seconds=1.0, outcome=None)
            for i, r in enumerate([0.0, 0.0, 0.0, 1.0])]
    hist = histogram(rows)
    assert [b["n"] for b in hist["bars"] if b["n"]] == [3, 1]
    assert [label for _, label in hist["x_ticks"]] == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    assert [n for _, n in hist["y_ticks"]] == [0, 1, 2, 3]
