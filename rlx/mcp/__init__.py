"""MCP: the protocol (Streamable HTTP, JSON-RPC), and MCP for every environment.

- `handle(endpoint, server_for)`: answer one HTTP request to an MCP endpoint (transport.py), for any
  `ToolServer` (protocol.py): the environments' tools here, a Space's tools in the bridge. While a request is
  answered, `flask.g.mcp_session` is its `Session` (sessions.py), for servers that keep state per session.
- `DatasetTools`: the tools of one dataset, read through its adapter (dataset_tools.py).
- `client_snippets`: how to add an endpoint to Claude Code, Codex, Cursor and VS Code (snippets.py).
"""

from rlx.mcp.dataset_tools import DatasetTools
from rlx.mcp.jsonrpc import RpcError
from rlx.mcp.protocol import SUPPORTED_VERSIONS, ToolError, ToolResult, ToolServer
from rlx.mcp.snippets import app_base_url, client_snippets
from rlx.mcp.transport import handle

__all__ = ["DatasetTools", "RpcError", "SUPPORTED_VERSIONS", "ToolError", "ToolResult", "ToolServer",
           "app_base_url", "client_snippets", "handle"]
