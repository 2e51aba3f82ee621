"""/metrics for Prometheus, with the official client (prometheus_client).

Request counts and latencies are counted as requests happen, labelled by the URL rule (`/d/<org>/<name>`), never
the raw path, so the number of series stays bounded whatever visitors type. Under gunicorn every worker is its own
process: `rlx serve` sets PROMETHEUS_MULTIPROC_DIR (a folder on local disk, emptied at start) and the client writes
each worker's figures there; a scrape adds them up. Everything else (RQ queues, the snapshot, MCP sessions) is read
from Redis and the store at scrape time, so every host reports the same shared figures (active rollouts are the
slots rlx/runs/limits.py holds, playground sessions those rlx/live/slots.py holds), and the answering worker's own
garbage collector.

Who may scrape is decided in `scrape_allowed` alone: with METRICS_TOKEN set, a request bearing it; without one,
loopback addresses only.
"""

from __future__ import annotations

import functools
import gc
import hmac
import os
import time
from datetime import datetime, timezone

from flask import Blueprint, Flask, abort, current_app, g, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from rq import Queue
from rq.job import Job

from rlx.queue import get_redis
from rlx.jobs.queues import QUEUES

bp = Blueprint("metrics", __name__)

_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
REQUESTS = Counter("rlx_http_requests", "Requests answered, by URL rule, method and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("rlx_http_request_duration_seconds", "Time to answer a request, by URL rule and method.",
                    ["route", "method"], buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
RECENT_JOBS = 50  # finished jobs per queue whose durations a scrape reads: a bounded look, not a full history
SESSION_SCAN_CAP = 100_000


def init_app(app: Flask) -> None:
    app.before_request(_start_timer)
    app.after_request(_count_request)
    app.register_blueprint(bp)


def scrape_allowed() -> bool:
    """METRICS_TOKEN set: the request must carry `Authorization: Bearer <token>`. Unset: loopback only."""
    token = current_app.config["RLX"].metrics_token
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())
    return request.remote_addr in ("127.0.0.1", "::1")


@bp.get("/metrics")
def metrics():
    if not scrape_allowed():
        abort(404)  # not found rather than forbidden: the endpoint is not advertised to the public
    body = generate_latest(_request_registry()) + generate_latest(_shared_figures())
    return body, 200, {"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"}


def _start_timer() -> None:
    g.rlx_started = time.perf_counter()


def _count_request(response):
    started = g.pop("rlx_started", None)
    if started is None:
        return response
    route = request.url_rule.rule if request.url_rule is not None else "(no route)"
    method = request.method if request.method in _METHODS else "other"
    count, latency = _series(route, method, response.status_code)
    count.inc()
    latency.observe(time.perf_counter() - started)
    return response


@functools.cache
def _series(route: str, method: str, status: int):
    """The counter and histogram of one kind of answer. prometheus_client checks and looks up the labels on every
    call; the kinds are few (URL rules, methods and statuses), so each is looked up once."""
    return REQUESTS.labels(route, method, str(status)), LATENCY.labels(route, method)


def _request_registry():
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    return registry


def _shared_figures() -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(_SharedCollector(current_app.extensions, current_app.config["RLX"]))
    return registry


class _SharedCollector:
    """Figures every host shares, read when scraped; a part that cannot be read says so in rlx_scrape_ok."""

    def __init__(self, extensions: dict, config):
        self.extensions, self.config = extensions, config

    def collect(self):
        ok = GaugeMetricFamily("rlx_scrape_ok", "1 when this part could be read for this scrape.", labels=["part"])
        for part, read in (("redis", self._queues), ("snapshot", self._snapshot), ("sessions", self._sessions),
                           ("rollouts", self._rollouts), ("playground", self._playground), ("heap", _heap)):
            try:
                families = list(read())
            except Exception:  # a scrape reports a broken part, it never fails as a whole
                ok.add_metric([part], 0)
                continue
            ok.add_metric([part], 1)
            yield from families
        yield ok

    def _queues(self):
        redis = get_redis()
        jobs = GaugeMetricFamily("rlx_rq_jobs", "RQ jobs by queue and state (started: being worked on now; the "
                                 "rollouts queue's started count is the active rollouts).", labels=["queue", "state"])
        mean = GaugeMetricFamily("rlx_rq_recent_job_seconds_mean", f"Mean run time of the last {RECENT_JOBS} "
                                 "finished jobs, by queue.", labels=["queue"])
        most = GaugeMetricFamily("rlx_rq_recent_job_seconds_max", f"Longest run time of the last {RECENT_JOBS} "
                                 "finished jobs, by queue.", labels=["queue"])
        for name in QUEUES:
            queue = Queue(name, connection=redis)
            counts = {"queued": queue.count, "started": queue.started_job_registry.count,
                      "finished": queue.finished_job_registry.count, "failed": queue.failed_job_registry.count,
                      "deferred": queue.deferred_job_registry.count, "scheduled": queue.scheduled_job_registry.count}
            for state, count in counts.items():
                jobs.add_metric([name, state], count)
            ids = queue.finished_job_registry.get_job_ids(-RECENT_JOBS, -1)
            seconds = [(job.ended_at - job.started_at).total_seconds()
                       for job in Job.fetch_many(ids, connection=redis)
                       if job is not None and job.started_at and job.ended_at]
            if seconds:
                mean.add_metric([name], sum(seconds) / len(seconds))
                most.add_metric([name], max(seconds))
        return jobs, mean, most

    def _snapshot(self):
        from rlx.snapshot.app_catalog import reader

        status = reader().status()
        if not status.get("snapshot"):
            return ()
        built = datetime.strptime(status["built_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        age = GaugeMetricFamily("rlx_snapshot_age_seconds", "Seconds since the snapshot this process serves was "
                                "built.", value=(datetime.now(timezone.utc) - built).total_seconds())
        size = GaugeMetricFamily("rlx_snapshot_size_bytes", "Size of the snapshot this process serves.",
                                 value=_snapshot_size(self.extensions["rlx.store"], status["snapshot"]))
        rows = GaugeMetricFamily("rlx_snapshot_rows", "Environments and tasks in the snapshot this process serves.",
                                 labels=["kind"])
        for kind, count in (status.get("counts") or {}).items():
            if isinstance(count, (int, float)):
                rows.add_metric([kind], count)
        return age, size, rows

    def _sessions(self):
        from rlx.mcp.sessions import KEY_PREFIX

        count = 0
        for _ in get_redis().scan_iter(match=KEY_PREFIX + "*", count=1000):
            count += 1
            if count >= SESSION_SCAN_CAP:
                break
        return (GaugeMetricFamily("rlx_mcp_sessions", "Open MCP sessions (all hosts; counted up to "
                                  f"{SESSION_SCAN_CAP:,}).", value=count),)

    def _rollouts(self):
        from rlx.runs.limits import ALL_KEY

        # A slot whose score (its expiry) has passed belongs to a job that died without releasing it.
        active = get_redis().zcount(ALL_KEY, time.time(), "+inf")
        return (GaugeMetricFamily("rlx_rollouts_active", "Rollouts holding a slot now (all hosts).", value=active),)

    def _playground(self):
        from rlx.live.slots import open_count

        return (GaugeMetricFamily("rlx_playground_sessions", "Playground sessions open now (all hosts; one left "
                                  "behind by a dead process stops counting once stale).",
                                  value=open_count(get_redis())),)


def _heap():
    """The answering process's garbage collector: what it froze at boot (rlx/web/gevent_worker.py) and how often
    each generation was collected since."""
    frozen = GaugeMetricFamily("rlx_gc_frozen_objects", "Objects this process froze after booting (gc.freeze): "
                               "no collection walks them.", value=gc.get_freeze_count())
    runs = CounterMetricFamily("rlx_gc_collections", "Collections by generation in this process (2: full).",
                               labels=["generation"])
    for generation, stats in enumerate(gc.get_stats()):
        runs.add_metric([str(generation)], stats["collections"])
    return frozen, runs


def _snapshot_size(store, name: str) -> float:
    try:
        return float((store.snapshots_dir / name).stat().st_size)
    except OSError:
        return float("nan")
