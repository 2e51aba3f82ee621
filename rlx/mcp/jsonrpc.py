"""JSON-RPC 2.0 as MCP uses it: reading one message, and writing results and errors.

A message is a request (method and id), a notification (method, no id) or a response (id with result or
error). Anything else is refused with the standard codes, so a client sees a JSON-RPC error, never a 500.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000  # the reserved server range: refusals of the transport (origin, size, rate, session)

MAX_ID_CHARS = 200  # a request id longer than this is refused (we echo ids back, so they are bounded)
MAX_DEPTH = 32  # JSON nested deeper than this is refused before anything reads it


class RpcError(Exception):
    """A JSON-RPC error to answer with; `status` is the HTTP status that carries it."""

    def __init__(self, code: int, message: str, status: int = 200, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.status, self.data = code, message, status, data


@dataclass
class Message:
    kind: str  # "request", "notification" or "response"
    method: str | None
    id: Any
    params: dict


def parse_body(body: bytes) -> Any:
    """The body as JSON, or RpcError(-32700) with HTTP 400."""
    try:
        text = body.decode("utf-8")
        value = json.loads(text, parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RpcError(PARSE_ERROR, "The body is not valid JSON (UTF-8).", 400) from None
    if _depth(value) > MAX_DEPTH:
        raise RpcError(PARSE_ERROR, f"The JSON is nested deeper than {MAX_DEPTH} levels.", 400)
    return value


def read_message(value: Any) -> Message:
    """One JSON-RPC message from parsed JSON, checked; RpcError(-32600) when it is not one."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'A message must be a JSON object with "jsonrpc": "2.0".', 400)
    has_id = "id" in value
    ident = value.get("id")
    if has_id and not _valid_id(ident):
        raise RpcError(INVALID_REQUEST, "The id must be a string or an integer (at most 200 characters).", 400)
    method = value.get("method")
    if method is None:
        if has_id and (("result" in value) != ("error" in value)):
            return Message("response", None, ident, {})
        raise RpcError(INVALID_REQUEST, "A message needs a method (or, for a response, a result or an error).",
                       400)
    if not isinstance(method, str) or not method or len(method) > 200:
        raise RpcError(INVALID_REQUEST, "The method must be a non-empty string.", 400)
    params = value.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object.", 200 if has_id else 400)
    return Message("request" if has_id else "notification", method, ident, params)


def result(ident: Any, value: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "result": value}


def error(ident: Any, code: int, message: str, data: Any = None) -> dict:
    """An error response; `ident` None gives the id-less error the transport uses for refusals."""
    body = {"jsonrpc": "2.0", "error": {"code": code, "message": message}}
    if data is not None:
        body["error"]["data"] = data
    if ident is not None:
        body["id"] = ident
    return body


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _valid_id(ident: Any) -> bool:
    if isinstance(ident, bool):
        return False
    if isinstance(ident, int):
        return abs(ident) < 2**63
    return isinstance(ident, str) and len(ident) <= MAX_ID_CHARS


def _depth(value: Any, limit: int = MAX_DEPTH + 1) -> int:
    """How deep `value` nests, counted up to `limit` (iterative: a hostile body cannot exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth >= limit:
                return depth
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest
