"""Several hosts over one Redis and one shared store, with real processes: two `rlx serve` web hosts (each with its
own cache folder) and two `rlx worker` processes on one redis-server reached over TCP, as a managed Redis would be.

What a visitor notices: work asked of one host is done by some worker and shown by the other host; a snapshot
published once is served by every host; an MCP session opened on one host is known (and ended) on the other; and
when a worker or a whole host is killed, the rest carry on with nothing lost.
"""

from __future__ import annotations

import json

import pytest
import redis
from rq import Worker
from rq.job import Job

from rlx.jobs.index import index_job_id
from rlx.snapshot.schema import pointer_name
from rlx.store import Store
from tests.cluster import Cluster, call, wait_for
from tests.conftest import EXAMPLES

MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def cluster(tmp_path):
    group = Cluster(tmp_path, str(EXAMPLES))
    try:
        group.start_redis()
        group.start_worker("worker-1")
        group.start_worker("worker-2")
        group.start_host("a")
        group.start_host("b")
        yield group
    finally:
        group.stop()


def env_state(port: int, repo: str) -> dict:
    answer = call(port, "GET", f"/api/env/{repo}")
    assert answer.status == 200, answer.body[:300]
    return answer.json()


def worker_names(db) -> set[str]:
    return {worker.name for worker in Worker.all(connection=db)}


def index_job_of(db, port: int, repo: str) -> Job:
    return Job.fetch(index_job_id(repo, env_state(port, repo)["revision"]), connection=db)


def serving(port: int) -> dict:
    return call(port, "GET", "/readyz").json()["checks"]["snapshot"]


def test_two_hosts_and_two_workers_share_one_redis_and_one_store(cluster):
    db = redis.Redis.from_url(cluster.redis_url)
    a, b = cluster.ports["a"], cluster.ports["b"]
    workers = wait_for("both workers to register", lambda: len(worker_names(db)) == 2 and worker_names(db))

    # An index job asked for through host A is done by one of the workers and shown complete by host B.
    repo = "rlx-examples/math-word-problems"
    assert env_state(a, repo)["state"] == "indexing"
    done = wait_for("host B to show the index complete", lambda: env_state(b, repo)["state"] == "ready" and
                    env_state(b, repo))
    assert done["tasks"] > 0
    assert index_job_of(db, b, repo).worker_name in workers
    assert call(b, "GET", f"/d/{repo}").status == 200

    # Both hosts are ready: same Redis, same workers, each serving a catalog.
    for port in (a, b):
        ready = call(port, "GET", "/readyz").json()
        assert ready["ok"], ready
        assert ready["checks"]["workers"]["count"] == 2

    # A snapshot built by a worker and published once is picked up by both hosts from the shared store.
    before = {serving(a)["snapshot"], serving(b)["snapshot"]}
    from rlx import Config, create_app
    from rlx.jobs.snapshot import ensure_snapshot_job

    config = Config.from_env(cluster.env("cache-test"))
    with create_app(config).app_context():
        job_id = ensure_snapshot_job().id
    wait_for("the snapshot job to finish", lambda: Job.fetch(job_id, connection=db).get_status() == "finished",
             timeout=180, every=0.5)
    pointer = json.loads((Store(cluster.storage).snapshots_dir / pointer_name()).read_text())
    assert pointer["db"] not in before
    for port in (a, b):
        now = wait_for(f"port {port} to serve the published snapshot",
                       lambda: serving(port)["snapshot"] == pointer["db"] and serving(port))
        assert now["origin"] == "pointer"

    # An MCP session opened on A is known on B, and once ended on B it is gone on A too.
    mcp = f"/mcp/d/{repo}"
    opened = call(a, "POST", mcp, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}}},
        headers=MCP_ACCEPT)
    assert opened.status == 200, opened.body[:300]
    session = {**MCP_ACCEPT, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert call(b, "POST", mcp, ping, headers=session).status == 200
    assert call(b, "DELETE", mcp, headers=session).status == 204
    assert call(a, "POST", mcp, ping, headers=session).status == 404

    # Each host's /metrics adds up its gunicorn workers' requests, and reports the jobs every host shares.
    before = healthz_count(a)
    for _ in range(20):
        assert call(a, "GET", "/healthz").status == 200
    assert healthz_count(a) - before == 20
    assert metric(b, 'rlx_rq_jobs{queue="index",state="finished"}') >= 1


def metric(port: int, series: str) -> float:
    for line in call(port, "GET", "/metrics").body.decode().splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def healthz_count(port: int) -> float:
    return metric(port, 'rlx_http_requests_total{method="GET",route="/healthz",status="200"}')


def test_killing_a_worker_or_a_host_loses_nothing(cluster):
    from rlx import Config, create_app
    from rlx.jobs.enqueue import enqueue_once
    from tests.jobs_for_tests import hold_first_step

    db = redis.Redis.from_url(cluster.redis_url)
    a, b = cluster.ports["a"], cluster.ports["b"]
    wait_for("both workers to register", lambda: len(worker_names(db)) == 2)
    first = "rlx-examples/trivia-table"
    wait_for("the first index through A", lambda: env_state(a, first)["state"] == "ready")

    # A worker killed in the middle of a job: the job runs again on the other worker and finishes.
    with create_app(Config.from_env(cluster.env("cache-test"))).app_context():
        job = enqueue_once("index", hold_first_step, job_id="held-job", description="held", attempts=2)
    holder = wait_for("a worker to start the held job", lambda: Job.fetch(job.id, connection=db).worker_name)
    pids = {worker.name: worker.pid for worker in Worker.all(connection=db)}
    victim = next(name for name, process in cluster.processes.items() if process.pid == pids[holder])
    cluster.kill(victim)
    survivor = next(name for name in pids if name != holder)
    wait_for("the held job to start again on the other worker", lambda: Job.fetch(job.id, connection=db).worker_name
             == survivor and Job.fetch(job.id, connection=db).get_status() == "started", timeout=90, every=0.5)
    db.rpush("tests:release", "go")
    wait_for("the held job to finish", lambda: Job.fetch(job.id, connection=db).get_status() == "finished")

    # The surviving worker takes the next job asked for through B; A shows it done.
    second = "rlx-examples/countdown-verl"
    assert env_state(b, second)["state"] == "indexing"
    wait_for("the surviving worker to index through B", lambda: env_state(a, second)["state"] == "ready")
    assert index_job_of(db, a, second).worker_name == survivor

    # A web host killed: the other one serves everything, including what the dead one asked for.
    cluster.kill("a")
    wait_for("host A to stop answering", lambda: call(a, "GET", "/healthz", timeout=2).status == 0)
    for repo in (first, second):
        assert env_state(b, repo)["state"] == "ready"
        assert call(b, "GET", f"/d/{repo}").status == 200
    third = "rlx-examples/tool-calls-nemo-gym"
    wait_for("host B to have a new dataset indexed", lambda: env_state(b, third)["state"] == "ready")
