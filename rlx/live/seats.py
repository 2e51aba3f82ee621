"""Who plays a Space's server and who waits for it, in Redis, so visitors of every web process share one line.

Most OpenEnv servers take a single /ws session (OpenEnv's default). The playground therefore holds a server's
session only while its episode is in use, and a visitor who finds the server full waits in that Space's line:

- `held`: our sessions holding an episode, scored by the moment each will be given up at the latest (its last
  move plus the idle time); a holder whose process died stops moving its score, and is dropped once it is past.
- `line`: the sessions waiting, scored by arrival, so the first to come is the first to try; `seen` scores
  each by its last sign of life, so one left behind by a dead process leaves the line after WAIT_STALE_S.
- `capacity`: how many sessions the server said it takes, and its words (its CAPACITY_REACHED answer), kept a
  day.

Only the head of the line tries the server, and only when fewer of our sessions hold it than it takes, so a
visitor who arrives later never slips past one who waits. A player who keeps moving does not keep the server from
the line for ever: the first waiter's arrival starts the player's last TURN_S (rlx.live.shared_episode).
"""

from __future__ import annotations

import json
import time

WAIT_STALE_S = 15  # a waiter refreshes every POLL_S; this long without it, it is gone
CAPACITY_KEEP_S = 24 * 3600
MAX_LINE = 500  # the line read in one call; every waiter holds one of the playground's slots (slots.TOTAL)

_POSITION = """
local now, stale, me = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local waiting = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[4]))
local ahead, found = 0, false
for _, sid in ipairs(waiting) do
  if sid == me then found = true break end
  if redis.call('ZSCORE', KEYS[2], sid) then ahead = ahead + 1 else redis.call('ZREM', KEYS[1], sid) end
end
local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
return {found and ahead + 1 or 0, redis.call('ZCARD', KEYS[3]), first[2] or ''}
"""


_FIRST_WAITING = """
local now, stale = tonumber(ARGV[1]), tonumber(ARGV[2])
local waiting = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]), 'WITHSCORES')
for i = 1, #waiting, 2 do
  local seen = redis.call('ZSCORE', KEYS[2], waiting[i])
  if seen and tonumber(seen) > now - stale then return waiting[i + 1] end
end
return ''
"""


def _keys(space_id: str) -> tuple[str, str, str, str]:
    base = f"rlx:play:seats:{space_id}:"
    return base + "line", base + "seen", base + "held", base + "capacity"


class Line:
    """One session's place with one Space's server."""

    def __init__(self, redis, space_id: str, session_id: str):
        self.redis, self.session_id = redis, session_id
        self.line_key, self.seen_key, self.held_key, self.capacity_key = _keys(space_id)

    # --- waiting ---------------------------------------------------------------------------------------

    def join(self) -> None:
        """Stand in line (keeping one's place when already in it)."""
        now = time.time()
        pipe = self.redis.pipeline()
        pipe.zadd(self.line_key, {self.session_id: now}, nx=True)
        pipe.zadd(self.seen_key, {self.session_id: now})
        for key in (self.line_key, self.seen_key):
            pipe.expire(key, CAPACITY_KEEP_S)
        pipe.execute()

    def place(self) -> dict:
        """{position (1 = next; 0 = not in line), holders (ours, now), free_by (when the first of them is given up
        at the latest, epoch seconds, or None), capacity (the server's, when it said)}; refreshes this waiter."""
        now = time.time()
        self.redis.zadd(self.seen_key, {self.session_id: now}, xx=True)
        position, holders, first = self.redis.eval(_POSITION, 3, self.line_key, self.seen_key, self.held_key, now,
                                                   WAIT_STALE_S, self.session_id, MAX_LINE)
        said = _said(self.redis.get(self.capacity_key))
        return {"position": int(position), "holders": int(holders),
                "free_by": float(first) if first not in (b"", "", None) else None,
                "capacity": said.get("max"), "reason": said.get("reason") or ""}

    def waiting(self) -> int:
        """How many are in line now (the stale included until someone reads their places)."""
        return self.redis.zcard(self.line_key)

    def first_waiting_since(self) -> float | None:
        """When the longest-waiting live waiter came (epoch seconds), or None when nobody waits: what bounds a
        player's turn (rlx.live.shared_episode)."""
        since = self.redis.eval(_FIRST_WAITING, 2, self.line_key, self.seen_key, time.time(), WAIT_STALE_S,
                                MAX_LINE)
        return float(since) if since not in (b"", "", None) else None

    def leave(self) -> None:
        pipe = self.redis.pipeline()
        pipe.zrem(self.line_key, self.session_id)
        pipe.zrem(self.seen_key, self.session_id)
        pipe.execute()

    def may_try(self) -> bool:
        """Whether this session may ask the server for a session now: nobody waits ahead of it, and fewer of ours
        hold the server than it takes."""
        place = self.place()
        if place["position"] > 1:
            return False
        if place["position"] == 0 and self.waiting() > 0:
            return False
        return place["capacity"] is None or place["holders"] < place["capacity"]

    # --- playing ---------------------------------------------------------------------------------------

    def hold(self, until: float) -> None:
        """This session plays; it gives the server back by `until` at the latest."""
        pipe = self.redis.pipeline()
        pipe.zadd(self.held_key, {self.session_id: until})
        pipe.expire(self.held_key, CAPACITY_KEEP_S)
        pipe.zrem(self.line_key, self.session_id)
        pipe.zrem(self.seen_key, self.session_id)
        pipe.execute()

    def still_holds(self, until: float) -> None:
        self.redis.zadd(self.held_key, {self.session_id: until}, xx=True)

    def give_back(self) -> None:
        self.redis.zrem(self.held_key, self.session_id)

    def server_said(self, capacity: int | None, reason: str) -> None:
        """What the server said when it was full (its CAPACITY_REACHED answer: max_sessions and its sentence),
        for every waiter to read."""
        said = {"reason": str(reason)[:400]}
        if isinstance(capacity, int) and 0 < capacity < 100_000:
            said["max"] = capacity
        self.redis.set(self.capacity_key, json.dumps(said), ex=CAPACITY_KEEP_S)


def _said(raw) -> dict:
    try:
        said = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return said if isinstance(said, dict) and isinstance(said.get("max", 0), int) else {}
