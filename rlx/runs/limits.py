"""Caps on active rollouts, overall and per visitor, kept in Redis so every web process and worker agrees.

Each active run holds a slot in two sorted sets (all runs; the visitor's runs) scored by the time its slot
expires (its job's time limit), so a slot a crashed job never released frees itself. Taking a slot checks both
caps and adds to both sets in one Lua script: two visitors racing for the last slot cannot both win.
"""

from __future__ import annotations

import time

from flask import current_app

from rlx.queue.defaults import KEY_PREFIX

ALL_KEY = f"{KEY_PREFIX}runs:active"
DEFAULT_MAX_ACTIVE = 8  # this 2-core box runs about this many sandboxes at once
DEFAULT_MAX_PER_VISITOR = 2

_TAKE = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('EXPIRE', KEYS[2], 86400)
return 0
"""


class LimitReached(Exception):
    """One sentence for the visitor, and how long to wait before trying again."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def caps() -> tuple[int, int]:
    config = current_app.config
    return (int(config.get("RLX_MAX_ACTIVE_RUNS", DEFAULT_MAX_ACTIVE)),
            int(config.get("RLX_MAX_RUNS_PER_VISITOR", DEFAULT_MAX_PER_VISITOR)))


def slot_owner(run) -> str | None:
    """Whose slot a run holds: a batch's runs are paced by the batch's own cap, so they count overall only."""
    return None if run.batch else (run.cap_holder or run.visitor)  # `visitor`: a record from before cap_holder


def visitor_key(visitor: str) -> str:
    return f"{KEY_PREFIX}runs:active:{visitor}"


def take_slot(redis, visitor: str | None, run_id: str, seconds: int) -> None:
    """Hold a slot for `run_id`, or raise LimitReached. Runs started by the server itself (no visitor: the CLI,
    a batch) count against the overall cap only."""
    max_all, max_visitor = caps()
    if visitor is None:
        visitor, max_visitor = "-", max_all
    now = time.time()
    answer = redis.eval(_TAKE, 2, ALL_KEY, visitor_key(visitor), now, now + seconds, max_all, max_visitor, run_id)
    if answer == 1:
        raise LimitReached(f"This server already runs {max_all} rollouts, its limit; try again when one ends.", 30)
    if answer == 2:
        raise LimitReached(f"You already have {max_visitor} rollouts running, the limit per visitor; wait for "
                           "one to end or stop it.", 30)


def release_slot(redis, visitor: str | None, run_id: str) -> None:
    with redis.pipeline() as pipe:
        pipe.zrem(ALL_KEY, run_id)
        if visitor:
            pipe.zrem(visitor_key(visitor), run_id)
        pipe.execute()
