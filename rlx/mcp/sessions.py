"""MCP sessions in Redis: any web process answers any session, and an idle one ends by itself.

A session is minted by `initialize` (the `Mcp-Session-Id` it answers with) and kept as one small JSON value at
rlx:mcp:session:<id>. Every request that uses it pushes its expiry back; DELETE, or SESSION_IDLE_S without a
request, ends it, after which the spec's 404 tells the client to initialize again.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass

SESSION_IDLE_S = 30 * 60
KEY_PREFIX = "rlx:mcp:session:"
ADDRESS_PREFIX = "rlx:mcp:address:"  # the sessions an address holds, where the endpoint caps them
_ID = re.compile(r"^[A-Za-z0-9_-]{32,64}\Z")  # what `new_session` mints: visible ASCII, as the spec requires


@dataclass
class Session:
    id: str
    endpoint: str  # the MCP endpoint path it was made on: a session never crosses to another environment
    version: str  # the negotiated protocol version
    client: str = ""  # the client's own name and version, for logs
    created: float = 0.0


def new_session(redis, endpoint: str, version: str, client: str = "", address: str | None = None) -> Session:
    """A new session; with `address`, it is also counted among that address's (live_sessions_of)."""
    session = Session(secrets.token_urlsafe(32), endpoint, version, client[:120], time.time())
    redis.set(KEY_PREFIX + session.id, json.dumps(asdict(session)), ex=SESSION_IDLE_S)
    if address:
        key = _address_key(address)
        pipe = redis.pipeline()
        pipe.sadd(key, session.id)
        pipe.expire(key, SESSION_IDLE_S)
        pipe.execute()
    return session


def live_sessions_of(redis, address: str) -> int:
    """How many sessions counted for `address` are still live (ended or expired ones are forgotten here)."""
    key = _address_key(address)
    ids = list(redis.smembers(key))
    if not ids:
        return 0
    alive = redis.exists(*[KEY_PREFIX + (i.decode() if isinstance(i, bytes) else i) for i in ids]) if ids else 0
    if alive < len(ids):
        pipe = redis.pipeline()
        for session_id in ids:
            pipe.exists(KEY_PREFIX + (session_id.decode() if isinstance(session_id, bytes) else session_id))
        gone = [i for i, live in zip(ids, pipe.execute()) if not live]
        if gone:
            redis.srem(key, *gone)
    return alive


def _address_key(address: str) -> str:
    return ADDRESS_PREFIX + hashlib.sha256(address.encode()).hexdigest()[:24]


def find_session(redis, session_id: str) -> Session | None:
    """The live session with this id, its idle time restarted; None when unknown, ended or expired."""
    if not _ID.match(session_id or ""):
        return None
    key = KEY_PREFIX + session_id
    pipe = redis.pipeline()
    pipe.get(key)
    pipe.expire(key, SESSION_IDLE_S)
    raw, _ = pipe.execute()
    if raw is None:
        return None
    try:
        return Session(**json.loads(raw))
    except (ValueError, TypeError):  # a value we did not write: treat as no session
        return None


def end_session(redis, session_id: str) -> bool:
    """End a session; False when there was none."""
    if not _ID.match(session_id or ""):
        return False
    return bool(redis.delete(KEY_PREFIX + session_id))
