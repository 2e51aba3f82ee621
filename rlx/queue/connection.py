"""The app's Redis connection and RQ queues, opened lazily and shared by the process."""

from __future__ import annotations

import redis
from flask import Flask, current_app
from rq import Queue

from rlx.queue.defaults import QUEUES

__all__ = ["QUEUES", "get_queue", "get_redis", "init_app", "connect"]


def connect(url: str) -> redis.Redis:
    """A client with timeouts, so a dead Redis is an error in seconds, not a hang."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5, health_check_interval=30)


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


def get_queue(name: str) -> Queue:
    defaults = QUEUES[name]
    return Queue(name, connection=get_redis(), default_timeout=defaults.job_timeout)
