"""How a run's failure reads on its page: one sentence, never raw exception text with the server's paths.

The server's own trouble (the store's disk full or read-only, Redis gone) is an "infrastructure error", said the
same way whichever layer hit it (our job, Harbor's trial, RQ's record of a dead job). Anything else keeps its
message, which our own errors word as a sentence, with every server path or address replaced (rlx/redact.py).
"""

from __future__ import annotations

import redis

from rlx.redact import without_paths
from rlx.store.writable import is_store_full

INFRASTRUCTURE = "InfrastructureError"
STORE_FULL = ("Infrastructure error: the server's storage is full (or read-only), so the run was stopped; "
              "start it again later.")
QUEUE_DOWN = ("Infrastructure error: the server's job queue (Redis) stopped answering, so the run was stopped; "
              "start it again later.")
MAX_CHARS = 600
# What a message says when the disk under it was full, however it got wrapped (Harbor keeps the text only).
_FULL_WORDS = ("No space left on device", "Disk quota exceeded", "Read-only file system", "database or disk is full",
               "disk I/O error")


def failure_of(exc: BaseException) -> tuple[str, str]:
    """(error type, the sentence the run page shows) for an exception our job caught."""
    if is_store_full(exc):
        return INFRASTRUCTURE, STORE_FULL
    if isinstance(exc, redis.exceptions.RedisError):
        return INFRASTRUCTURE, QUEUE_DOWN
    if type(exc).__name__ == "JobTimeoutException":
        return type(exc).__name__, "It ran past its time limit and was stopped; the sandbox was taken down."
    return type(exc).__name__, clean(str(exc).strip() or type(exc).__name__)


def failure_from_text(type_name: str, message: str) -> tuple[str, str] | None:
    """The same for a failure known only by its type's name and message (Harbor's exception_info, RQ's record):
    the infrastructure sentence when it is one, else None."""
    if any(words in message for words in _FULL_WORDS):
        return INFRASTRUCTURE, STORE_FULL
    if type_name.startswith("redis.") or "redis.exceptions" in message or type_name in ("RedisError",):
        return INFRASTRUCTURE, QUEUE_DOWN
    return None


def clean(text: str) -> str:
    return without_paths(text)[:MAX_CHARS]


__all__ = ["INFRASTRUCTURE", "QUEUE_DOWN", "STORE_FULL", "clean", "failure_from_text", "failure_of"]
