"""The visitor's token for a run on a private or gated dataset, handed from the web to the job through Redis.

Such a dataset's index lives on the visitor's shelf (rlx/auth/shelf.py) and its files open only with their token,
so the job needs it once, when it starts: to ask the Hub whether the token still opens the dataset, to find the
shelf, and to copy the task's files. The web writes it under the run's id with a time limit; the job takes it
(read and deleted at once) before the trial starts. It never reaches the run record, the store, the events or the
sandbox. An HF Sandbox run keeps its own key (rlx/runs/sandboxes.py), which lives as long as the run.
"""

from __future__ import annotations

import json

from rlx.queue.defaults import KEY_PREFIX

WAIT_SLACK_SEC = 3600  # how long a queued run's token waits for a worker, past the run's own time limit


class LostAccess(Exception):
    """The visitor's token no longer opens the dataset (or has expired): one sentence, never the token."""


def token_key(run_id: str) -> str:
    return f"{KEY_PREFIX}run:{run_id}:read-token"


def hand(redis, run_id: str, token: str, shelf: str, run_seconds: int) -> None:
    """`shelf` is the key of the token's shelf (rlx/auth/shelf.py), which only the web can compute."""
    redis.set(token_key(run_id), json.dumps({"token": token, "shelf": shelf}), ex=int(run_seconds) + WAIT_SLACK_SEC)


def batch_key(batch_id: str) -> str:
    return f"{KEY_PREFIX}batch:{batch_id}:read-token"


def hand_batch(redis, batch_id: str, token: str, shelf: str, ttl: int) -> None:
    """A batch on a private dataset: its runs start later (the worker starts the next as one ends), so the token
    waits under the batch, as its model key does (rlx/runs/models.py), and is lent to each run as it is queued."""
    redis.set(batch_key(batch_id), json.dumps({"token": token, "shelf": shelf}), ex=ttl)


def lend_batch(redis, batch_id: str, run_id: str, run_seconds: int) -> bool:
    """Copy the batch's token to one run about to be queued; False when it has expired."""
    raw = redis.get(batch_key(batch_id))
    if raw is None:
        return False
    redis.set(token_key(run_id), raw, ex=int(run_seconds) + WAIT_SLACK_SEC)
    return True


def forget_batch(redis, batch_id: str) -> None:
    redis.delete(batch_key(batch_id))


def take(redis, run_id: str) -> tuple[str, str] | None:
    """(token, shelf key), once: the key is gone from Redis as soon as it is read."""
    raw = redis.getdel(token_key(run_id))
    try:
        handed = json.loads(raw) if raw else None
        return (str(handed["token"]), str(handed["shelf"])) if handed else None
    except (ValueError, TypeError, KeyError):
        return None


def forget(redis, run_id: str) -> None:
    redis.delete(token_key(run_id))
