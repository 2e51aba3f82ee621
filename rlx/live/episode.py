"""One episode on a Space's server: a WebSocket to its /ws, spoken the way OpenEnv's own client speaks it.

reset, step, state and MCP calls (`{"type":"mcp"}`) go over the same socket, so they share one environment.
Every call waits at most STEP_TIMEOUT_S and takes frames of at most MAX_FRAME bytes; whatever goes wrong comes
back as a LiveError with a sentence for the page, and the socket is closed for good after a failure that leaves
the episode in doubt (a hang, a closed socket, a frame too big or not JSON).

Blocking calls: under gevent the patched sockets and threads make them cooperative.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI, PayloadTooBig
from websockets.sync.client import connect

from rlx.live.errors import LiveError, SpaceRefused

OPEN_TIMEOUT_S = 8.0
STEP_TIMEOUT_S = 30.0  # a step may run real work (a sandboxed command, a model call)
MAX_FRAME = 4 * 1024 * 1024  # one observation; images in base64 fit, a runaway body does not
_MESSAGE_TOO_BIG = 1009
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}\Z")


class Episode:
    """The socket to `base_url`'s /ws. Use as a context manager, or close()."""

    def __init__(self, base_url: str, *, open_timeout: float | None = None, step_timeout: float | None = None,
                 max_frame: int | None = None, session_id: str | None = None):
        """`session_id`: attach to a session the server made over HTTP (openenv/session/create, OpenEnv 0.10),
        which outlives this socket; without it the socket's own session ends with it."""
        parsed = urlparse(base_url)
        if session_id is not None and not _SESSION_ID.match(session_id):
            raise LiveError("The server's session id is not a plain token.", "not_json")
        query = f"?session_id={session_id}" if session_id else ""
        if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path.strip("/"):
            raise SpaceRefused(f"{base_url!r} is not the address of a Space.")
        scheme = "wss" if parsed.scheme == "https" else "ws"
        self.step_timeout = step_timeout or STEP_TIMEOUT_S
        self.max_frame = max_frame or MAX_FRAME
        self.steps = 0
        self.closed = False
        self._mcp_id = 0
        try:
            # websockets 15's sync client follows no redirect: a 3xx comes back as InvalidStatus (below).
            self._ws = connect(f"{scheme}://{parsed.netloc}/ws{query}", open_timeout=open_timeout or OPEN_TIMEOUT_S,
                               max_size=self.max_frame, close_timeout=2, proxy=None, compression=None,
                               user_agent_header="hf-rl-explorer (+playground)")
        except TimeoutError:
            raise LiveError("The server's /ws did not accept a connection in time.", "timeout") from None
        except InvalidHandshake as exc:
            response = getattr(exc, "response", None)
            status = getattr(response, "status_code", None)
            if status and 300 <= status < 400:
                target = str(response.headers.get("Location", ""))[:160] or "nowhere"
                raise LiveError(f"The server's /ws redirected to {target}; redirects are not followed.", "redirect",
                                status) from None
            raise LiveError("The server refused a WebSocket on /ws" + (f" (HTTP {status})" if status else "")
                            + ": it may not be an OpenEnv server, or an older one without /ws.", "status",
                            status) from None
        except (OSError, InvalidURI) as exc:
            raise LiveError(f"The server's /ws could not be reached ({type(exc).__name__}).", "unreachable") from None

    def __enter__(self) -> "Episode":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self._ws.send(json.dumps({"type": "close"}))
            except Exception:  # the socket may already be gone; closing is all that is left to do
                pass
            self._ws.close()

    # --- the protocol ----------------------------------------------------------------------------------

    def reset(self, data: dict | None = None) -> dict:
        """The first observation: {observation, reward, done}. `data` may carry seed, episode_id, split, index."""
        self.steps = 0
        return self._ask({"type": "reset", "data": data or {}}, "observation", "reset")

    def step(self, action: dict) -> dict:
        answer = self._ask({"type": "step", "data": action}, "observation", "step")
        self.steps += 1
        return answer

    def state(self) -> dict:
        return self._ask({"type": "state"}, "state", "state")

    def mcp(self, method: str, params: dict | None = None) -> dict:
        """A JSON-RPC call to the environment's MCP tools on this episode; the response's `result`.
        A JSON-RPC error comes back as LiveError (reason "tool")."""
        self._mcp_id += 1
        answer = self._ask({"type": "mcp", "data": {"jsonrpc": "2.0", "id": self._mcp_id, "method": method,
                                                    "params": params or {}}}, "mcp", method)
        if isinstance(answer.get("error"), dict):
            raise LiveError(f"{method} answered an error: {str(answer['error'].get('message') or '')[:300]}",
                            "tool")
        result = answer.get("result")
        return result if isinstance(result, dict) else {"value": result}

    def _ask(self, frame: dict, expected: str, what: str) -> dict:
        if self.closed:
            raise LiveError("This episode's connection to the server is closed; start a new one.", "closed")
        try:
            raw = self._send_and_receive(json.dumps(frame))
        except TimeoutError:
            self._abandon()
            raise LiveError(f"The server did not answer {what} within {self.step_timeout:g} s; the episode was "
                            "closed.", "timeout") from None
        except PayloadTooBig:
            self._abandon()
            raise _too_big(what, self.max_frame) from None
        except ConnectionClosed as exc:
            self.closed = True
            if exc.rcvd and exc.rcvd.code == _MESSAGE_TOO_BIG or exc.sent and exc.sent.code == _MESSAGE_TOO_BIG:
                raise _too_big(what, self.max_frame) from None
            raise LiveError(f"The server closed the connection during {what}; the episode is over.",
                            "unreachable") from None
        try:
            message = json.loads(raw)
        except ValueError:
            self._abandon()
            raise LiveError(f"The server answered {what} with something that is not JSON; the episode was closed.",
                            "not_json") from None
        if not isinstance(message, dict) or not isinstance(message.get("data"), (dict, type(None))):
            self._abandon()
            raise LiveError(f"The server answered {what} with a message that is not OpenEnv's shape.", "not_json")
        kind, data = message.get("type"), message.get("data") or {}
        if kind == "error":
            refusal = _refusal(what, data)
            if refusal.reason == "capacity":
                self._abandon()  # a full server closes the socket after saying so
            raise refusal
        if kind != expected:
            self._abandon()
            raise LiveError(f"The server answered {what} with a {str(kind)[:40]!r} message instead of "
                            f"{expected!r}.", "not_json")
        return data

    def _send_and_receive(self, text: str):
        """Send one frame and read its answer. A full server accepts the socket, says why it will not serve it and
        closes: when our frame arrives after that, the reason is still read."""
        try:
            self._ws.send(text)
        except ConnectionClosed:
            return self._ws.recv(timeout=0)  # what came before the close, else ConnectionClosed again
        return self._ws.recv(timeout=self.step_timeout)

    def _abandon(self) -> None:
        """A late or unreadable answer leaves the episode in doubt: close rather than read the next one wrong."""
        try:
            self._ws.close()
        except Exception:  # best effort; the relay reports the first failure, not this one
            pass
        self.closed = True


def _refusal(what: str, data: dict) -> LiveError:
    """The server's error message as a sentence: its words, its code, and which fields were wrong. The socket stays
    usable after a per-message error; a full server's (CAPACITY_REACHED) comes with its session counts."""
    code = str(data.get("code") or "")
    text = str(data.get("message") or "no reason given")[:400]
    fields = _field_errors(data.get("errors"))
    sentence = f"The server refused {what}: {text}" + (f" ({code})" if code else "") + (f": {fields}" if fields
                                                                                          else "")
    if code == "CAPACITY_REACHED":
        counts = {k: data[k] for k in ("active_sessions", "max_sessions") if isinstance(data.get(k), int)}
        return LiveError(sentence, "capacity", data={"message": text, **counts})
    return LiveError(sentence, "server")


def _field_errors(errors) -> str:
    """Pydantic's validation errors (OpenEnv sends them as `errors`) as "field: message" pairs, the first few."""
    if not isinstance(errors, list):
        return ""
    pairs = []
    for error in errors[:5]:
        if isinstance(error, dict):
            where = ".".join(str(p) for p in error.get("loc") or [] if p not in ("body", "data")) or "the action"
            pairs.append(f"{where[:80]}: {str(error.get('msg') or 'invalid')[:160]}")
    return "; ".join(pairs)


def _too_big(what: str, limit: int) -> LiveError:
    return LiveError(f"The server answered {what} with more than {limit // (1024 * 1024)} MB in one message; "
                     "the episode was closed.", "too_large")
