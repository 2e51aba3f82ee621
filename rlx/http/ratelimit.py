"""Rate limits, counted in Redis so every worker process and every host agrees on one count per address.

The counting is the `limits` library (the engine of flask-limiter) with its Redis storage and a sliding-window
counter. We use it directly rather than through flask-limiter: flask-limiter binds its decorators to one extension
object made at import time, while we build an app per process (and per test), and the MCP endpoint must check
mid-request and answer its refusal as JSON-RPC. Two entry points, one mechanism:

    @rate_limited("runs")             # on a view: over the limit, a 429 page (JSON under /api/) with Retry-After
    def start_run(...): ...

    wait = over_limit("mcp")          # anywhere in a request: None, or the seconds to wait

Limits are named in LIMITS (sign-in, pasted tokens, runs, wake, MCP, other writes); RLX_RATE_LIMITS in the app's
config overrides any of them (tests, or an admin setting later). A limit string reads like "30/minute" or
"10 per 5 minutes".
"""

from __future__ import annotations

import hashlib
import math
import time
from functools import wraps

from flask import current_app, request
from limits import parse
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from rlx.queue import get_redis

LIMITS = {
    "writes": "30/minute",  # a visitor's small changes: dismissing the banner, asking to index again
    "mcp": "240/minute",  # every MCP request (the spec asks servers to rate-limit tool calls)
    "sign_in": "10/minute",
    "token": "10/minute",  # a pasted Hugging Face token, checked against the Hub
    "runs": "20/hour",
    "wake": "6/minute",  # waking or restarting a sleeping Space
}
KEY_PREFIX = "rlx:rate"


def limit_for(name: str) -> str:
    return {**LIMITS, **current_app.config.get("RLX_RATE_LIMITS", {})}[name]


def client_address() -> str:
    """Who is counted: the connecting address, or the client's own behind RLX_PROXY_HOPS trusted proxies
    (rlx/http/proxies.py rewrites remote_addr then; a forged X-Forwarded-For never reaches here otherwise)."""
    return request.remote_addr or "unknown"


def over_limit(name: str, who: str | None = None, cost: int = 1, limit: str | None = None) -> int | None:
    """Count one request against limit `name` for `who` (default: this client's address); the seconds to wait
    when it is over, else None. `limit` replaces the named limit's rate (an admin's setting, say)."""
    item = parse(limit or limit_for(name))
    key = hashlib.sha256((who or client_address()).encode()).hexdigest()[:24]  # no raw address in Redis
    limiter = _limiter()
    if limiter.hit(item, name, key, cost=cost):
        return None
    reset_at = limiter.get_window_stats(item, name, key).reset_time
    return max(1, math.ceil(reset_at - time.time()))


def rate_limited(name: str, who=None):
    """Decorate a view: each call counts against limit `name` (per address, or per `who()`)."""
    def decorate(view):
        @wraps(view)
        def limited(*args, **kwargs):
            wait = over_limit(name, who() if who else None)
            if wait is not None:
                return too_many(wait)
            return view(*args, **kwargs)

        return limited

    return decorate


def too_many(wait: int):
    from rlx.http.error_answers import error_response

    return error_response(429, f"Too many requests from your address; try again in {wait} s.", retry_after=wait)


def _limiter() -> SlidingWindowCounterRateLimiter:
    limiter = current_app.extensions.get("rlx.ratelimiter")
    if limiter is None:  # made on first use: the app's Redis connection is itself opened lazily
        storage = RedisStorage("redis://", connection_pool=get_redis().connection_pool, key_prefix=KEY_PREFIX)
        limiter = current_app.extensions["rlx.ratelimiter"] = SlidingWindowCounterRateLimiter(storage)
    return limiter
