"""Opening a dataset not yet indexed starts one job (however many visitors), shows its progress, then the tasks."""

from concurrent.futures import ThreadPoolExecutor

from rq import Queue
from rq.job import Job

from tests.processes import wait_until


def test_two_visitors_opening_the_same_dataset_start_one_job(app, redis_client):
    def visit():
        return app.test_client().get("/d/rlx-examples/terminal-basics").get_data(as_text=True)

    with ThreadPoolExecutor(4) as pool:
        pages = list(pool.map(lambda _: visit(), range(4)))
    assert all("Reading rlx-examples/terminal-basics for the first time" in page for page in pages)
    queue = Queue("index", connection=redis_client)
    assert len(queue.job_ids) == 1
    job = Job.fetch(queue.job_ids[0], connection=redis_client)
    assert job.func_name == "rlx.jobs.index.index_dataset" and job.args[0] == "rlx-examples/terminal-basics"


def test_a_real_worker_indexes_it_and_the_page_fills_in(app, client, running_worker, redis_client):
    first = client.get("/d/rlx-examples/science-puzzles").get_data(as_text=True)
    assert 'id="progress"' in first and 'hx-trigger="every 1s"' in first
    assert '<meta http-equiv="refresh" content="2">' in first  # with JS off the page refreshes itself

    assert wait_until(lambda: client.get("/api/env/rlx-examples/science-puzzles").get_json()["state"] == "ready")
    page = client.get("/d/rlx-examples/science-puzzles").get_data(as_text=True)
    assert page.count('class="task-row') == 5 and 'id="progress"' not in page
    # The polling fragment now tells htmx to reload the whole page.
    poll = client.get("/d/rlx-examples/science-puzzles/progress", headers={"HX-Request": "true"})
    assert poll.headers.get("HX-Refresh") == "true"


def test_the_job_reports_each_step_with_counts(app, client, running_worker, redis_client):
    client.get("/d/rlx-examples/python-bugfix")
    assert wait_until(lambda: client.get("/api/env/rlx-examples/python-bugfix").get_json()["state"] == "ready")
    registry = Queue("index", connection=redis_client).finished_job_registry
    # The index lands a moment before the worker files the job as finished.
    assert wait_until(lambda: any("python-bugfix" in j for j in registry.get_job_ids()))
    job = Job.fetch([j for j in registry.get_job_ids() if "python-bugfix" in j][0], connection=redis_client)
    steps = {s["name"]: s for s in job.meta["progress"]["steps"]}
    assert [s["state"] for s in steps.values()] == ["done", "done", "done"]
    assert steps["listing"]["done"] == 5 and steps["fetching"]["total"] == steps["fetching"]["done"] > 5
