"""MCP's Streamable HTTP transport (protocol 2025-03-26 to 2025-11-25) on a Flask request.

One endpoint URL takes POST (one JSON-RPC message per request; JSON answers, never a stream), GET (405: we
offer no server-to-client stream, as the spec allows) and DELETE (ends the session). `initialize` mints an
`Mcp-Session-Id` kept in Redis (sessions.py); every later request must carry it, and an unknown or expired one
gets 404 so the client starts over. Notifications and responses get 202 with no body.

Before anything is read: the Origin check (Host is checked for every route, against DNS rebinding), a
per-address rate limit, and a cap on the body.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from flask import Response, g, redirect, request
from redis.exceptions import RedisError

from rlx.mcp import jsonrpc
from rlx.mcp.jsonrpc import INVALID_REQUEST, SERVER_ERROR, Message, RpcError
from rlx.mcp.protocol import MODERN_VERSIONS, SUPPORTED_VERSIONS, ToolServer, answer, initialize_result, negotiate
from rlx.mcp.sessions import Session, end_session, find_session, live_sessions_of, new_session
from rlx.queue import get_redis
from rlx.http.origin import same_origin
from rlx.http.ratelimit import over_limit

log = logging.getLogger("rlx.mcp")
MAX_BODY = 512 * 1024
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
BATCH_VERSION = "2025-03-26"  # the one version whose POST body may be a JSON array of messages
MAX_BATCH = 32


def handle(endpoint: str, server_for: Callable[[], ToolServer], landing: str = "",
           sessions_per_address: int | None = None) -> Response:
    """Answer one HTTP request to the MCP endpoint at path `endpoint`. `server_for()` builds the tool server
    (lazily: a ping or a notification never needs it); `landing` is a page for people who open the URL;
    `sessions_per_address` caps the live sessions one address may hold on this kind of endpoint."""
    try:
        _check_origin()
        _check_rate()
        if request.method in ("GET", "HEAD"):
            return _get(landing)
        if request.method == "DELETE":
            return _delete(endpoint, server_for)
        return _post(endpoint, server_for, sessions_per_address)
    except RpcError as exc:
        return _json(jsonrpc.error(_request_id(), exc.code, exc.message, exc.data), exc.status,
                     retry_after=(exc.data or {}).get("retryAfter") if isinstance(exc.data, dict) else None)
    except RedisError:  # sessions and limits live in Redis: without it, nothing can be answered for now
        log.warning("MCP request without Redis", exc_info=True)
        return _json(jsonrpc.error(_request_id(), SERVER_ERROR, "Sessions are unavailable for a moment; try again."),
                     503, retry_after=5)


# --- refusals before anything is read --------------------------------------------------------------------

def _check_origin() -> None:
    """Host was checked before Flask saw the request (rlx/http/hosts.py: the spec's defence against DNS rebinding).
    Origin, when a browser sends one, must be this app's; MCP clients that are not browsers send none."""
    if not same_origin(allow_absent=True):
        raise RpcError(SERVER_ERROR, "Cross-origin requests may not use this MCP endpoint.", 403)


def _check_rate() -> None:
    wait = over_limit("mcp")
    if wait is not None:
        raise RpcError(SERVER_ERROR, f"Too many requests from your address; try again in {wait} s.", 429,
                       {"retryAfter": wait})


# --- GET and DELETE ------------------------------------------------------------------------------------

def _get(landing: str) -> Response:
    if landing and _wants_a_page():  # someone opened the URL in a browser: show them how to add it to a client
        return _no_store(redirect(landing, 303))
    text = ("This is an MCP endpoint (Streamable HTTP): MCP clients POST JSON-RPC messages to it. It offers no "
            "server-sent event stream, so GET is not allowed." + (f" How to add it to your client: {landing}"
                                                                  if landing else ""))
    response = Response(text + "\n", 405, mimetype="text/plain")
    response.headers["Allow"] = "POST, DELETE"
    return _no_store(response)


def _wants_a_page() -> bool:
    """A browser's GET (it asks for HTML first); an MCP client's asks for an event stream, or anything."""
    accept = request.accept_mimetypes
    return request.method == "GET" and accept.best_match(["text/event-stream", "text/html"]) == "text/html" \
        and accept["text/html"] > accept["text/event-stream"]


def _delete(endpoint: str, server_for) -> Response:
    session_id = request.headers.get(SESSION_HEADER)
    if not session_id:
        raise RpcError(INVALID_REQUEST, f"DELETE ends a session: send its {SESSION_HEADER} header.", 400)
    session = find_session(get_redis(), session_id)
    if session is None or session.endpoint != endpoint:
        raise RpcError(INVALID_REQUEST, "No such session here (it ended, or expired).", 404)
    end_session(get_redis(), session_id)
    _tell_ended(server_for, session_id)
    return _no_store(Response(status=204))


# --- POST --------------------------------------------------------------------------------------------------

def _request_id():
    """The id of the request being refused, when it was read: a client matches an error to its request by it
    (the official client says only "Server returned an error response" without one)."""
    found = g.get("rpc_request_id")
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


def _tell_ended(server_for, session_id: str) -> None:
    """A server keeping state per session (the Space bridge's episodes) lets go of it: `session_ended`."""
    try:
        ended = getattr(server_for(), "session_ended", None)
        if ended is not None:
            ended(session_id)
    except Exception:  # the session is over for the client whatever happens upstream; the server's idle sweep
        log.info("mcp.session_ended hook failed", exc_info=True)  # closes what this could not


def _post(endpoint: str, server_for, sessions_per_address: int | None = None) -> Response:
    _check_content_negotiation()
    value = jsonrpc.parse_body(_read_body())
    if isinstance(value, dict):
        g.rpc_request_id = value.get("id")
    session_id = request.headers.get(SESSION_HEADER)
    header_version = request.headers.get(VERSION_HEADER)
    if isinstance(value, dict) and not session_id and (
            value.get("method") == "server/discover" or header_version in MODERN_VERSIONS):
        # A 2026-era client probing first: an empty 400 is its signal to fall back to initialize.
        return _no_store(Response(status=400))
    if isinstance(value, dict) and value.get("method") == "initialize":
        return _initialize(endpoint, value, server_for, sessions_per_address)
    if not session_id:
        raise RpcError(INVALID_REQUEST, f"Send the {SESSION_HEADER} header that initialize answered with (or "
                                        "initialize first).", 400)
    session = find_session(get_redis(), session_id)
    if session is None or session.endpoint != endpoint:
        raise RpcError(INVALID_REQUEST, "This session ended or expired: initialize a new one.", 404)
    if header_version is not None and header_version != session.version:
        detail = ("is not one this server speaks" if header_version not in SUPPORTED_VERSIONS
                  else f"differs from this session's {session.version}")
        raise RpcError(INVALID_REQUEST, f"{VERSION_HEADER} {header_version[:40]!r} {detail}.", 400)
    if isinstance(value, list):
        return _batch(value, session, server_for)
    message = jsonrpc.read_message(value)
    if message.kind != "request":
        return _no_store(Response(status=202))
    return _json(_answer_one(message, session, server_for))


def _check_content_negotiation() -> None:
    if request.mimetype != "application/json":
        raise RpcError(INVALID_REQUEST, "Send the message as Content-Type: application/json.", 415)
    accept = request.accept_mimetypes
    if request.headers.get("Accept") and not accept.accept_json:
        raise RpcError(INVALID_REQUEST, "This server answers application/json: list it in Accept.", 406)


def _read_body() -> bytes:
    if (request.content_length or 0) > MAX_BODY:
        raise RpcError(INVALID_REQUEST, f"The body is larger than {MAX_BODY // 1024} KB.", 413)
    body = request.stream.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise RpcError(INVALID_REQUEST, f"The body is larger than {MAX_BODY // 1024} KB.", 413)
    return body


def _initialize(endpoint: str, value: dict, server_for, sessions_per_address: int | None = None) -> Response:
    message = jsonrpc.read_message(value)
    if message.kind != "request":
        raise RpcError(INVALID_REQUEST, "initialize is a request: give it an id.", 400)
    params = message.params
    if not isinstance(params.get("protocolVersion"), str):
        return _json(jsonrpc.error(message.id, jsonrpc.INVALID_PARAMS,
                                   "initialize needs params.protocolVersion, the version the client speaks.",
                                   {"supported": list(SUPPORTED_VERSIONS)}))
    version = negotiate(params["protocolVersion"])
    server = server_for()  # an environment that does not exist answers 404 here, before a session is made
    client = params.get("clientInfo") if isinstance(params.get("clientInfo"), dict) else {}
    label = f"{str(client.get('name', ''))[:60]} {str(client.get('version', ''))[:30]}".strip()
    address = (request.remote_addr or "unknown") if sessions_per_address else None
    if address and live_sessions_of(get_redis(), address) >= sessions_per_address:
        raise RpcError(SERVER_ERROR, f"Your address already holds {sessions_per_address} live sessions here: end "
                                     "one (DELETE) or let one go idle before starting another.", 429,
                       {"retryAfter": 60})
    session = new_session(get_redis(), endpoint, version, label, address=address)
    response = _json(jsonrpc.result(message.id, initialize_result(server, version)))
    response.headers[SESSION_HEADER] = session.id
    return response


def _answer_one(message: Message, session: Session, server_for) -> dict:
    g.mcp_session = session  # a server that keeps state per session (the Space bridge's episodes) reads it here
    try:
        return jsonrpc.result(message.id, answer(message, session.version, server_for))
    except RpcError as exc:
        return jsonrpc.error(message.id, exc.code, exc.message, exc.data)


def _batch(values: list, session: Session, server_for) -> Response:
    if session.version != BATCH_VERSION:
        raise RpcError(INVALID_REQUEST, f"Batches are not part of protocol {session.version}: send one message "
                                        "per POST.", 400)
    if not values or len(values) > MAX_BATCH:
        raise RpcError(INVALID_REQUEST, f"A batch holds 1 to {MAX_BATCH} messages.", 400)
    replies = []
    for value in values:
        try:
            message = jsonrpc.read_message(value)
        except RpcError as exc:
            replies.append(jsonrpc.error(None, exc.code, exc.message))
            continue
        if message.kind == "request":
            replies.append(_answer_one(message, session, server_for) if message.method != "initialize" else
                           jsonrpc.error(message.id, INVALID_REQUEST, "initialize may not be part of a batch."))
    return _json(replies) if replies else _no_store(Response(status=202))


# --- answers -------------------------------------------------------------------------------------------------

def _json(body, status: int = 200, retry_after: int | None = None) -> Response:
    response = Response(json.dumps(body, ensure_ascii=False, separators=(",", ":")), status,
                        mimetype="application/json")
    if retry_after:
        response.headers["Retry-After"] = str(retry_after)
    return _no_store(response)


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = "noindex"
    return response
