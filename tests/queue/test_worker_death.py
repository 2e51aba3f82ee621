"""A worker killed mid-job: noticed in seconds, its job run again a bounded number of times, the page saying so, and
no work horse left running. Real worker processes on a real Redis, killed for real; the Hub is the stand-in."""

from __future__ import annotations

import os
import signal

import pytest
from rq import Queue, Retry
from rq.job import Job, JobStatus

from rlx import create_app
from tests.processes import alive, children_of, kill, start_worker, wait_until
from tests.stand_ins.hub_fixtures import harbor_dataset

SLOW = "slow-org/many-tasks"


@pytest.fixture
def many_tasks_hub(hub):
    """The stand-in Hub with a 40-task dataset (its files held back by each test as it needs: `hold_files`)."""
    hub.add_repo("dataset", SLOW, harbor_dataset("Many tasks", tasks=[f"task-{i:02d}" for i in range(40)]),
                 {"trendingScore": 1})
    return hub


def hold_files(hub):
    """From now on, the dataset's files after the first few wait until released: an index run stays in the middle
    of its fetching (never finished, however slow or loaded the machine) until the test lets it go on."""
    return hub.hold(f"/{SLOW}/resolve/", let_through=3)


@pytest.fixture
def hub_app(many_tasks_hub, make_config, redis_client):
    return create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=many_tasks_hub.url))


@pytest.fixture
def worker_env(hub_app, redis_url, redis_client):
    config = hub_app.config["RLX"]
    env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir), "RLX_SOURCE": "hub",
           "HF_ENDPOINT": config.hf_endpoint, "SESSION_SECRET": "test-secret"}
    started = []

    def start(queues="index"):
        process, _ = start_worker(env, redis_client, queues)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(15)


def fetching_under_way(client):
    """The page shows the fetching step running. (Not its count: a worker writes counts at most every 0.25 s, so
    with the next files held back, the last count written may well be 0.)"""
    body = client.get(f"/api/env/{SLOW}").get_json()
    steps = {s["name"]: s for s in (body.get("progress") or {}).get("steps", [])}
    return steps.get("fetching", {}).get("state") == "running"


def live_workers(client):
    return client.get("/readyz").get_json()["checks"]["workers"]["count"]


def test_a_killed_worker_is_noticed_its_job_retried_twice_then_given_up_and_the_page_says_so(hub_app, worker_env,
                                                                                             many_tasks_hub):
    client = hub_app.test_client()
    assert "for the first time" in client.get(f"/d/{SLOW}").get_data(as_text=True)

    for attempt in (1, 2, 3):
        held = hold_files(many_tasks_hub)
        worker = worker_env()
        assert wait_until(lambda: live_workers(client) == 1, timeout=30)
        # Killed in the middle: its horse runs the job, the first files are fetched and the next one is held back.
        horses = wait_until(lambda: held.waiting and fetching_under_way(client) and children_of(worker.pid),
                            timeout=60)
        assert horses and len(horses) == 1, f"run {attempt} never got under way"
        kill(worker, signal.SIGKILL)

        # The horse stops with its worker (its files still held: it could not have finished on its own), and
        # /readyz stops counting the dead worker.
        assert wait_until(lambda: not alive(horses[0]), timeout=5), "the work horse outlived its worker"
        assert wait_until(lambda: live_workers(client) == 0, timeout=30)
        if attempt < 3:
            notice = f"The worker indexing this stopped unexpectedly; retrying ({attempt + 1} of 3)."
            assert wait_until(lambda: notice in client.get(f"/d/{SLOW}").get_data(as_text=True), timeout=60)

    failed = ("<strong>Indexing failed:</strong> the worker indexing this stopped unexpectedly, 3 times in a row, "
              "so it was given up.")
    assert wait_until(lambda: failed in client.get(f"/d/{SLOW}").get_data(as_text=True), timeout=30)
    assert ">Try again</button>" in client.get(f"/d/{SLOW}").get_data(as_text=True)
    assert client.get(f"/api/env/{SLOW}").get_json()["state"] == "failed"

    # Try again, with a worker that lives and nothing held back: the dataset is indexed whole.
    held.release()
    worker_env()
    assert client.post(f"/d/{SLOW}/reindex", headers={"Origin": "http://localhost"}).status_code == 303
    assert wait_until(lambda: client.get(f"/api/env/{SLOW}").get_json()["state"] == "ready", timeout=120)
    assert client.get(f"/api/env/{SLOW}").get_json()["tasks"] == 40


def test_a_stopped_worker_kills_its_horse_and_puts_the_job_back_without_counting_it(hub_app, worker_env,
                                                                                    redis_client):
    job = Queue("index", connection=redis_client).enqueue("tests.jobs_for_tests.sleep_for", 600, job_timeout=900,
                                                          retry=Retry(max=2))
    worker = worker_env()
    assert wait_until(lambda: job.get_status() == JobStatus.STARTED and children_of(worker.pid), timeout=30)
    horse = children_of(worker.pid)[0]

    kill(worker, signal.SIGTERM)  # returns once the worker has exited, not ten minutes later

    assert not alive(horse)
    job = Job.fetch(job.id, connection=redis_client)
    assert job.get_status() == JobStatus.QUEUED and job.retries_left == 2
    assert Queue("index", connection=redis_client).job_ids[0] == job.id  # first in line for the next worker


def test_an_error_the_job_raises_is_final_not_retried(hub_app, worker_env, redis_client):
    job = Queue("index", connection=redis_client).enqueue("tests.jobs_for_tests.fail_with", "bad input",
                                                          retry=Retry(max=2))
    worker_env()
    assert wait_until(lambda: job.get_status() == JobStatus.FAILED, timeout=60)
    assert Job.fetch(job.id, connection=redis_client).get_meta().get("runs") == 1


def test_a_worker_killed_while_cleaning_the_queue_does_not_hold_up_the_retry(hub_app, worker_env, redis_client):
    from rlx.jobs.watch import watch
    from rlx.queue.defaults import MAINTENANCE_LOCK_S

    queue = Queue("index", connection=redis_client)
    job = queue.enqueue("tests.jobs_for_tests.sleep_for", 600, job_timeout=900, retry=Retry(max=2))
    worker = worker_env()
    assert wait_until(lambda: job.get_status() == JobStatus.STARTED and children_of(worker.pid), timeout=30)
    # The cleaning lock taken and never given back, as by a worker killed in the middle of its cleanup.
    assert wait_until(lambda: redis_client.set(queue.registry_cleaning_key, 1, nx=True, ex=MAINTENANCE_LOCK_S),
                      timeout=30)

    kill(worker, signal.SIGKILL)

    notice = "The worker indexing this stopped unexpectedly; retrying (2 of 3)."
    assert wait_until(lambda: watch(Job.fetch(job.id, connection=redis_client)).notice == notice, timeout=60)
