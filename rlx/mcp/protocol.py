"""The MCP methods a tool server answers: initialize (version negotiation), ping, tools/list and tools/call.

What serves the tools is a `ToolServer`: the environments' tools here, a Space's tools in the bridge. The HTTP
side (sessions, headers, status codes) lives in transport.py; this module only turns a request into a result.

Errors follow the spec's split: a malformed call or an unknown tool is a JSON-RPC error; a tool that cannot do
what it was asked (bad arguments, nothing found, the dataset still indexing) answers a result with isError, so
the model reads the sentence and can try again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from rlx.mcp.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, Message, RpcError

log = logging.getLogger("rlx.mcp")

# Newest first. The handshake era of the spec; the 2026 era (no initialize, no sessions) is answered with the
# empty 400 its clients take as "fall back to initialize" (see transport.py).
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]
MODERN_VERSIONS = ("2026-07-28",)
_WITH_TITLES = ("2025-11-25", "2025-06-18")  # titles and structuredContent arrived in 2025-06-18
MAX_TOOL_TEXT = 200_000  # characters of one tool result; the rest is cut with a note saying so


class ToolError(Exception):
    """A tool could not do what it was asked; the message (one or two sentences) goes back as an isError result."""


@dataclass
class ToolResult:
    text: str
    is_error: bool = False
    structured: dict | None = None  # the same content as data, for clients that read structuredContent
    content: list[dict] | None = None  # other content blocks (a Space's images), sent after the text


class ToolServer(Protocol):
    name: str  # serverInfo.name
    title: str
    instructions: str

    def list_tools(self) -> list[dict]:
        """[{"name", "title", "description", "inputSchema"}]"""

    def call_tool(self, name: str, arguments: dict) -> ToolResult:
        """Raise ToolError for what the caller can fix; `name` is always one list_tools gave."""


def negotiate(requested: Any) -> str:
    """The version to answer initialize with: the client's when we speak it, else our newest (the spec's rule)."""
    return requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION


def initialize_result(server: ToolServer, version: str) -> dict:
    info = {"name": server.name, "version": "1.0"}
    if version in _WITH_TITLES:
        info["title"] = server.title
    return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": info, "instructions": server.instructions}


def answer(message: Message, version: str, server_for) -> dict:
    """The result of one request in an initialized session; RpcError for protocol errors.
    `server_for()` builds the tool server only when a method needs it (ping never does)."""
    method, params = message.method, message.params
    if method == "ping":
        return {}
    if method == "tools/list":
        tools = server_for().list_tools()
        if version not in _WITH_TITLES:
            tools = [{k: v for k, v in tool.items() if k not in ("title", "outputSchema")} for tool in tools]
        return {"tools": tools}
    if method == "tools/call":
        return _call(server_for(), params, version)
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method[:100]}. This server offers tools only "
                                     "(tools/list, tools/call) and ping.")


def _call(server: ToolServer, params: dict, version: str) -> dict:
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str):
        raise RpcError(INVALID_PARAMS, "tools/call needs params.name, the tool's name.")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(INVALID_PARAMS, "params.arguments must be an object.")
    known = {tool["name"] for tool in server.list_tools()}
    if name not in known:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name[:100]}. Tools here: {', '.join(sorted(known))}.")
    try:
        outcome = server.call_tool(name, arguments)
    except ToolError as exc:
        outcome = ToolResult(str(exc), is_error=True)
    except Exception:
        log.exception("MCP tool %s failed", name)
        raise RpcError(INTERNAL_ERROR, "The tool failed on our side; this is a bug, and it was logged.") from None
    return tool_result(outcome, version)


def tool_result(outcome: ToolResult, version: str) -> dict:
    text = outcome.text
    if len(text) > MAX_TOOL_TEXT:
        text = text[:MAX_TOOL_TEXT] + f"\n\n[cut at {MAX_TOOL_TEXT:,} characters]"
    blocks = ([{"type": "text", "text": text}] if text or not outcome.content else []) + (outcome.content or [])
    body: dict = {"content": blocks, "isError": outcome.is_error}
    if outcome.structured is not None and version in _WITH_TITLES:
        body["structuredContent"] = outcome.structured
    return body
