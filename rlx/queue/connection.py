"""The app's Redis connection, opened lazily and shared by the process, and RQ record housekeeping."""

from __future__ import annotations

from contextlib import contextmanager

import redis
from flask import Flask, current_app
from redis.driver_info import DriverInfo
from rq import Queue
from rq.job import Job

from rlx.queue.defaults import MAINTENANCE_LOCK_S

__all__ = ["get_redis", "init_app", "connect", "delete_job", "maintenance_lock"]


# Named once: left out, redis-py looks its own version up in the installed packages' metadata for every connection
# it opens (about 2 ms of CPU each, a search of sys.path).
_DRIVER = DriverInfo(lib_version=redis.__version__)


def connect(url: str) -> redis.Redis:
    """A client with timeouts, so a dead Redis is an error in seconds, not a hang."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5, health_check_interval=30,
                                driver_info=_DRIVER)


def init_app(app: Flask) -> None:
    app.extensions["rlx.redis"] = None


def get_redis() -> redis.Redis:
    client = current_app.extensions.get("rlx.redis")
    if client is None:
        url = current_app.config["RLX"].redis_url
        if url is None:
            raise RuntimeError("REDIS_URL is not set: start the app with `rlx demo` or `rlx serve`.")
        client = current_app.extensions["rlx.redis"] = connect(url)
    return client


def delete_job(job: Job) -> None:
    """Delete a job record, even one whose dead worker's execution records lapsed before the job's list of them
    (RQ's own delete raises then)."""
    try:
        job.delete()
    except ValueError:
        job.connection.delete(job.execution_registry.key)
        job.delete()


@contextmanager
def maintenance_lock(queue: Queue):
    """Yield True when this process may clean `queue`'s registries now. RQ's own lock lasts 15 minutes, so a worker
    killed while cleaning would stop every cleanup (and the retry of its abandoned job) for that long; ours lapses
    after MAINTENANCE_LOCK_S. Same key as RQ's, so RQ's own workers take turns with ours."""
    acquired = bool(queue.connection.set(queue.registry_cleaning_key, 1, nx=True, ex=MAINTENANCE_LOCK_S))
    try:
        yield acquired
    finally:
        if acquired:
            queue.connection.delete(queue.registry_cleaning_key)
