"""One episode per MCP session on a Space's OpenEnv server, and one cookie jar per MCP session for its routes.

An MCP session's requests land on any web process, so the episode cannot be a socket one process keeps. OpenEnv
(0.10) lets a client make a session over HTTP (`openenv/session/create` on POST /mcp) that outlives any socket:
its id is kept in Redis beside the MCP session's, every reset / step / state attaches a short /ws to it
(`/ws?session_id=`), and the server's own tools are called on it (`session_id` in tools/call). It is closed
(`openenv/session/close`) when the MCP session ends, or after IDLE_S without a call, by whichever call to that
Space comes next: a one-session server is not held by a client that walked away. A server without HTTP sessions
(older OpenEnv) gets None, and its tools keep calling it without one.
"""

from __future__ import annotations

import json
import time

from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError

IDLE_S = 120  # an MCP episode without a call for this long is closed on the server
KEEP_S = 30 * 60  # the ids outlive no MCP session (rlx.mcp.sessions.SESSION_IDLE_S)
MAX_COOKIES, MAX_COOKIE_BYTES = 50, 4096
MAX_SWEEP = 20  # stale episodes closed by one call


class Episodes:
    """The MCP episodes of one Space's server."""

    def __init__(self, redis, space_id: str, base_url: str):
        self.redis, self.base_url = redis, base_url
        self.open_key = f"rlx:mcp:episodes:{space_id}"  # "<mcp session>|<server session>" -> last use

    def session_for(self, mcp_session: str) -> str | None:
        """The server's session for this MCP session, made on first use; None when the server has no HTTP
        sessions. LiveError (reason "capacity" with the server's words) when the server is full."""
        self.sweep()
        key = _key(mcp_session)
        upstream = _text(self.redis.get(key))
        if upstream:
            if upstream != "-":
                self._touch(mcp_session, upstream)
            return None if upstream == "-" else upstream
        upstream = self._create()
        if not self.redis.set(key, upstream or "-", nx=True, ex=KEEP_S):  # another process made one first
            if upstream:
                self._close(upstream)
            return self.session_for(mcp_session)
        if upstream:
            self._touch(mcp_session, upstream)
        return upstream

    def forget(self, mcp_session: str) -> str | None:
        """Start this MCP session's next call on a new episode (the server lost the old one); the old one's id."""
        upstream = _text(self.redis.get(_key(mcp_session)))
        self.redis.delete(_key(mcp_session))
        if upstream and upstream != "-":
            self.redis.zrem(self.open_key, f"{mcp_session}|{upstream}")
            return upstream
        return None

    def end(self, mcp_session: str) -> None:
        """The MCP session ended: close its episode on the server."""
        upstream = self.forget(mcp_session)
        if upstream:
            self._close(upstream)

    def sweep(self) -> None:
        """Close the episodes nobody called for IDLE_S (their MCP clients went away without a DELETE)."""
        stale = self.redis.zrangebyscore(self.open_key, "-inf", time.time() - IDLE_S, start=0, num=MAX_SWEEP)
        for member in stale:
            if not self.redis.zrem(self.open_key, member):
                continue  # another process took this one
            mcp_session, _, upstream = _text(member).partition("|")
            self.redis.delete(_key(mcp_session))
            self._close(upstream)

    def _touch(self, mcp_session: str, upstream: str) -> None:
        pipe = self.redis.pipeline()
        pipe.zadd(self.open_key, {f"{mcp_session}|{upstream}": time.time()})
        pipe.expire(self.open_key, KEEP_S)
        pipe.expire(_key(mcp_session), KEEP_S)
        pipe.execute()

    def _create(self) -> str | None:
        answer = self._rpc("openenv/session/create", {})
        error = answer.get("error") if isinstance(answer, dict) else None
        if isinstance(error, dict):
            message = str(error.get("message") or "")[:400]
            if "Method not found" in message or error.get("code") == -32601:
                return None
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            if "max_sessions" in data:
                raise LiveError(f"The server is full: {message}", "capacity", data={"message": message, **data})
            raise LiveError(f"The server could not start an episode: {message or 'no reason given'}", "server")
        session_id = ((answer or {}).get("result") or {}).get("session_id") if isinstance(answer, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise LiveError("The server answered openenv/session/create without a session id.", "not_json")
        return session_id[:100]

    def _close(self, upstream: str) -> None:
        try:
            self._rpc("openenv/session/close", {"session_id": upstream})
        except LiveError:
            pass  # the server is gone or forgot it: either way the session no longer holds it

    def _rpc(self, method: str, params: dict):
        with SpaceClient(self.base_url) as client:
            answer = client.request("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                                    f"POST /mcp {method}")
        if answer.status == 404:
            return {"error": {"code": -32601, "message": "Method not found (no /mcp)"}}
        return answer.json(f"POST /mcp {method}")


def _text(raw) -> str:
    return raw.decode() if isinstance(raw, bytes) else (raw or "")


def _key(mcp_session: str) -> str:
    return f"rlx:mcp:episode:{mcp_session}"


# --- answers ---------------------------------------------------------------------------------------------


def answers_of(redis, mcp_session: str) -> list[str]:
    """The values this MCP session's episode withheld so far (rlx.live.episode_answers), never shown."""
    raw = redis.get(f"rlx:mcp:answers:{mcp_session}")
    try:
        values = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


def keep_answers(redis, mcp_session: str, values: list[str]) -> None:
    if values:
        redis.set(f"rlx:mcp:answers:{mcp_session}", json.dumps(values), ex=KEEP_S)


def end_answers(redis, mcp_session: str) -> None:
    redis.delete(f"rlx:mcp:answers:{mcp_session}")


# --- cookies -------------------------------------------------------------------------------------------------


def jar(redis, mcp_session: str) -> dict:
    raw = redis.get(f"rlx:mcp:jar:{mcp_session}")
    try:
        cookies = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return cookies if isinstance(cookies, dict) else {}


def keep_cookies(redis, mcp_session: str, cookies: dict | None) -> None:
    """What a route's answer set, added to this MCP session's jar (bounded in count and size)."""
    if not cookies:
        return
    kept = jar(redis, mcp_session)
    for name, value in cookies.items():
        if len(kept) >= MAX_COOKIES and name not in kept:
            break
        if len(str(name)) + len(str(value)) <= MAX_COOKIE_BYTES:
            kept[str(name)] = str(value)
    redis.set(f"rlx:mcp:jar:{mcp_session}", json.dumps(kept), ex=KEEP_S)


def end_jar(redis, mcp_session: str) -> None:
    redis.delete(f"rlx:mcp:jar:{mcp_session}")
