"""How to add an environment's MCP endpoint to a coding agent: one copyable snippet per client.

Shapes, as each client documents them: Claude Code's `claude mcp add --transport http <name> <url>`; Codex's
`[mcp_servers.<name>]` table with `url` in ~/.codex/config.toml; Cursor's `mcpServers` object with `url` in
.cursor/mcp.json; VS Code's `servers` object with `"type": "http"` and `url` in .vscode/mcp.json.
"""

from __future__ import annotations

import json
import re

from flask import current_app, request

_UNSAFE = re.compile(r"[^a-z0-9_-]+")


def app_base_url() -> str:
    """This app's absolute address: RLX_PUBLIC_URL when set, else the one this request came in on."""
    return current_app.config["RLX"].public_url or request.host_url.rstrip("/")


def server_name(env_id: str) -> str:
    """A name every client accepts (letters, digits, - and _), from the dataset id."""
    return (_UNSAFE.sub("-", env_id.lower()).strip("-") or "environment")[:60]


def client_snippets(env_id: str, url: str) -> list[dict]:
    """[{"client", "where", "text"}] for Claude Code, Codex, Cursor and VS Code."""
    name = server_name(env_id)
    cursor = {"mcpServers": {name: {"url": url}}}
    vscode = {"servers": {name: {"type": "http", "url": url}}}
    return [
        {"client": "Claude Code", "where": "run in a terminal",
         "text": f"claude mcp add --transport http {name} {url}"},
        {"client": "Codex", "where": "add to ~/.codex/config.toml",
         "text": f"[mcp_servers.{name}]\nurl = {json.dumps(url)}"},
        {"client": "Cursor", "where": "add to .cursor/mcp.json", "text": json.dumps(cursor, indent=2)},
        {"client": "VS Code", "where": "add to .vscode/mcp.json", "text": json.dumps(vscode, indent=2)},
    ]
