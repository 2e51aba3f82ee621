"""MCP sessions in Redis: any web process answers any session, and an idle one ends by itself.

A session is minted by `initialize` (the `Mcp-Session-Id` it answers with) and kept as one small JSON value at
rlx:mcp:session:<id>. Every request that uses it pushes its expiry back; DELETE, or SESSION_IDLE_S without a
request, ends it, after which the spec's 404 tells the client to initialize again.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import asdict, dataclass

SESSION_IDLE_S = 30 * 60
KEY_PREFIX = "rlx:mcp:session:"
_ID = re.compile(r"^[A-Za-z0-9_-]{32,64}$")  # what `new_session` mints: visible ASCII, as the spec requires


@dataclass
class Session:
    id: str
    endpoint: str  # the MCP endpoint path it was made on: a session never crosses to another environment
    version: str  # the negotiated protocol version
    client: str = ""  # the client's own name and version, for logs
    created: float = 0.0


def new_session(redis, endpoint: str, version: str, client: str = "") -> Session:
    session = Session(secrets.token_urlsafe(32), endpoint, version, client[:120], time.time())
    redis.set(KEY_PREFIX + session.id, json.dumps(asdict(session)), ex=SESSION_IDLE_S)
    return session


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
