"""/metrics: what Prometheus reads, and who may read it."""

import re

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue

from workers.rq_worker import build_worker

OUTSIDE = {"REMOTE_ADDR": "203.0.113.7"}


def scrape(client, **kwargs) -> dict:
    """The samples of one scrape: {(name, frozenset(labels)): value}."""
    response = client.get("/metrics", **kwargs)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.get_data(as_text=True))
            for sample in family.samples}


def value(samples: dict, name: str, **labels) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def test_requests_are_counted_by_url_rule_not_by_raw_path(client):
    rule = "/d/<org>/<name>"

    def figures(samples):  # request counters live as long as the process: the test reads what it added
        return (sum(v for (name, labels), v in samples.items()
                    if name == "rlx_http_requests_total" and ("route", rule) in labels),
                value(samples, "rlx_http_requests_total", route=rule, method="GET", status="404") or 0,
                value(samples, "rlx_http_requests_total", route="(no route)", method="GET", status="404") or 0,
                value(samples, "rlx_http_request_duration_seconds_count", route=rule, method="GET") or 0)

    before = figures(scrape(client))
    for repo in ("math-word-problems", "trivia-table", "no-such-dataset"):
        client.get(f"/d/rlx-examples/{repo}")
    client.get("/a/path/nobody/routes")
    after = figures(scrape(client))
    assert [a - b for a, b in zip(after, before)] == [3, 1, 1, 3]
    text = client.get("/metrics").get_data(as_text=True)
    assert "math-word-problems" not in text and "/a/path/nobody" not in text


def test_job_counts_and_durations_by_queue_come_from_rq(app, client, redis_client):
    queue = Queue("index", connection=redis_client)
    queue.enqueue("tests.jobs_for_tests.count_to", 3)
    queue.enqueue("tests.jobs_for_tests.count_to", 4)
    samples = scrape(client)
    assert value(samples, "rlx_rq_jobs", queue="index", state="queued") == 2
    assert value(samples, "rlx_rq_jobs", queue="index", state="finished") == 0
    assert value(samples, "rlx_rq_recent_job_seconds_mean", queue="index") is None

    build_worker(app, queues=["index"]).work(burst=True)
    samples = scrape(client)
    assert value(samples, "rlx_rq_jobs", queue="index", state="queued") == 0
    assert value(samples, "rlx_rq_jobs", queue="index", state="finished") == 2
    assert value(samples, "rlx_rq_recent_job_seconds_mean", queue="index") > 0
    assert value(samples, "rlx_rq_jobs", queue="rollouts", state="started") == 0
    assert value(samples, "rlx_scrape_ok", part="redis") == 1


def test_snapshot_age_size_and_mcp_sessions_are_reported(app, client, redis_client):
    from rlx.mcp.sessions import new_session

    new_session(redis_client, "/mcp", "2025-06-18")
    new_session(redis_client, "/mcp", "2025-06-18")
    samples = scrape(client)
    assert value(samples, "rlx_mcp_sessions") == 2
    assert value(samples, "rlx_snapshot_age_seconds") >= 0
    assert value(samples, "rlx_snapshot_rows", kind="envs") > 0
    assert value(samples, "rlx_scrape_ok", part="snapshot") == 1


def test_active_rollouts_are_the_slots_held(app, client):
    from rlx.runs.limits import take_slot

    assert value(scrape(client), "rlx_rollouts_active") == 0
    with app.app_context():
        from rlx.queue import get_redis

        take_slot(get_redis(), "visitor-1", "run-a", 600)
        take_slot(get_redis(), "visitor-2", "run-b", 600)
    samples = scrape(client)
    assert value(samples, "rlx_rollouts_active") == 2
    assert value(samples, "rlx_scrape_ok", part="rollouts") == 1


def test_without_a_token_only_loopback_may_scrape(client):
    assert client.get("/metrics").status_code == 200
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    response = client.get("/metrics", environ_base=OUTSIDE)
    assert response.status_code == 404
    assert "rlx_" not in response.get_data(as_text=True)


@pytest.mark.parametrize("header, status", [
    (None, 404), ("Bearer wrong-token", 404), ("Basic s3cret-scrape-token", 404), ("Bearer s3cret-scrape-token", 200),
])
def test_with_a_token_every_address_must_bring_it(make_config, redis_client, header, status):
    from rlx import create_app

    client = create_app(make_config(METRICS_TOKEN="s3cret-scrape-token")).test_client()
    headers = {"Authorization": header} if header else {}
    for environ in ({}, OUTSIDE):  # loopback is no exception once a token is set
        assert client.get("/metrics", headers=headers, environ_base=environ).status_code == status


def test_a_bad_snapshot_check_interval_stops_start_up(make_config):
    from rlx.config import ConfigError

    for bad in ("0", "soon", "nan", "86400"):
        with pytest.raises(ConfigError, match=re.escape("RLX_SNAPSHOT_CHECK_S must be a number of seconds")):
            make_config(RLX_SNAPSHOT_CHECK_S=bad)


def test_open_playground_sessions_are_counted_and_a_closed_one_is_not(app, client):
    from rlx.live.slots import take_slot

    assert value(scrape(client), "rlx_playground_sessions") == 0
    with app.app_context():
        from rlx.queue import get_redis

        first = take_slot(get_redis(), "visitor-1")
        take_slot(get_redis(), "visitor-2")
        assert value(scrape(client), "rlx_playground_sessions") == 2
        first.release()
    samples = scrape(client)
    assert value(samples, "rlx_playground_sessions") == 1
    assert value(samples, "rlx_scrape_ok", part="playground") == 1
