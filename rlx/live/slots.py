"""How many playground sessions may be open: per visitor and overall, counted in Redis (every web process shares
the counts).

Each open session is a member of two sorted sets (the visitor's and everyone's) scored by its last sign of life.
A session refreshes its score as messages come, at most every TOUCH_EVERY_S (a step costs no Redis round trip of
its own for it); one whose process died without saying goodbye stops refreshing, and is no longer counted once its
score is older than STALE_S. Taking a slot is one Lua script, so two processes racing for the last one cannot both
get it.
"""

from __future__ import annotations

import hashlib
import secrets
import time

PER_VISITOR = 3
TOTAL = 200  # across every web process; the bench holds 100 in one process
IDLE_S = 300  # a session with no message from its visitor for this long ends
STALE_S = IDLE_S + 60  # a session not refreshed for this long was left behind by a dead process
TOUCH_EVERY_S = 5.0  # far inside STALE_S's minute of slack
ALL_KEY = "rlx:play:all"
VISITOR_PREFIX = "rlx:play:visitor:"

_TAKE = """
local now, stale = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - stale)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('EXPIRE', KEYS[1], stale)
return 0
"""


class SlotRefused(Exception):
    """No slot: the message says whose limit was reached and what to do."""


class Slot:
    def __init__(self, redis, visitor: str, session_id: str):
        self.redis, self.session_id = redis, session_id
        self.visitor_key = VISITOR_PREFIX + hashlib.sha256(visitor.encode()).hexdigest()[:24]
        self._touched = time.monotonic()  # take_slot scored it

    def touch(self) -> None:
        if time.monotonic() - self._touched < TOUCH_EVERY_S:
            return
        self._touched = time.monotonic()
        now = time.time()
        pipe = self.redis.pipeline()
        pipe.zadd(ALL_KEY, {self.session_id: now}, xx=True)
        pipe.zadd(self.visitor_key, {self.session_id: now}, xx=True)
        pipe.expire(self.visitor_key, STALE_S)
        pipe.execute()

    def release(self) -> None:
        pipe = self.redis.pipeline()
        pipe.zrem(ALL_KEY, self.session_id)
        pipe.zrem(self.visitor_key, self.session_id)
        pipe.execute()


def take_slot(redis, visitor: str, per_visitor: int | None = None, total: int | None = None) -> Slot:
    """A slot for one more session of `visitor`, or SlotRefused."""
    per_visitor = PER_VISITOR if per_visitor is None else per_visitor
    total = TOTAL if total is None else total
    slot = Slot(redis, visitor, secrets.token_urlsafe(12))
    verdict = redis.eval(_TAKE, 2, slot.visitor_key, ALL_KEY, time.time(), STALE_S, slot.session_id, per_visitor,
                         total)
    if verdict == 1:
        raise SlotRefused(f"You already have {per_visitor} playgrounds open: close one (or wait "
                          f"{IDLE_S // 60} minutes for an idle one to end) before opening another.")
    if verdict == 2:
        raise SlotRefused(f"All {total} playgrounds are in use right now; try again in a few minutes.")
    return slot


def open_count(redis, visitor: str | None = None) -> int:
    """Sessions open now (a visitor's, or everyone's), not counting ones left behind."""
    key = ALL_KEY if visitor is None else VISITOR_PREFIX + hashlib.sha256(visitor.encode()).hexdigest()[:24]
    return redis.zcount(key, time.time() - STALE_S, "+inf")
