"""How much one address may ask of the MCP endpoints: a fixed window counted in Redis (every process shares it).

The spec asks servers to rate-limit tool calls; we count every MCP request, so a client that opens sessions in
a loop is held back too.
"""

from __future__ import annotations

import hashlib
import time

REQUESTS_PER_WINDOW = 240
WINDOW_S = 60
KEY_PREFIX = "rlx:mcp:rate:"


def over_limit(redis, address: str, limit: int | None = None, window_s: int = WINDOW_S) -> int | None:
    """Count one request from `address`; the seconds to wait when it is over the limit, else None."""
    limit = REQUESTS_PER_WINDOW if limit is None else limit
    now = int(time.time())
    window = now // window_s
    key = f"{KEY_PREFIX}{hashlib.sha256(address.encode()).hexdigest()[:24]}:{window}"
    pipe = redis.pipeline()
    pipe.incr(key)
    pipe.expire(key, window_s + 1)
    count, _ = pipe.execute()
    if count > limit:
        return (window + 1) * window_s - now or 1
    return None
