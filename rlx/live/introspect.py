"""What a Space's server offers, asked of the server itself.

One pass reads /openapi.json (reset/step, the Task API, custom routes), /health, /metadata, /schema,
/list_environments, `tools/list` on POST /mcp, each Task API environment's splits, and finds its web page (the
README's base_path, then /web, then /). Servers of older openenv versions lack some of these routes: a missing
route is noted and the pass goes on. The result is a plain dict (JSON as it is stored in Redis), described by
`introspect`'s docstring; rlx.live.space_checks caches it.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError, SpaceRefused
from rlx.live.harbor import harbor_facts

METHODS = ("get", "post", "put", "patch", "delete")
MAX_ROUTES = 200
MAX_ENVIRONMENTS = 8
MAX_TOOLS = 100
# OpenEnv's own routes: the protocol every server shares, never offered as a server's custom routes.
PROTOCOL_PATHS = {"/reset", "/step", "/state", "/metadata", "/health", "/schema", "/mcp", "/ws",
                  "/list_environments", "/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"}
TASK_API_SUFFIXES = ("splits", "tasks", "num_tasks", "task", "task_range")
_TASK_API_PATH = re.compile(r"^/\{[A-Za-z_]+\}/(" + "|".join(TASK_API_SUFFIXES) + r")\Z")
_ENV_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,80}\Z")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def introspect(client: SpaceClient, base_path: str | None = None) -> dict:
    """Ask the server at `client` what it offers. Never raises for what the server does; the result:

    ok            the server answered at least one probe usefully
    error         when not ok: the sentence saying why (the first probe's failure)
    openenv       it speaks OpenEnv's protocol (health, metadata, schema, and reset/step or MCP)
    mode          "simulation" (HTTP reset/step served), "production" (only /ws and /mcp), or None
    routes        [{path, methods, summary, protocol, task_api, parameters, request_schema}] from its OpenAPI
    custom_routes the routes that are neither OpenEnv's protocol nor the Task API nor its web UI
    openapi       the OpenAPI document's `components.schemas` (for forms built from request schemas)
    health, metadata, schema   the documents those routes answered (None when missing)
    environments  Task API environment names; task_api {env: {"splits": [...]} or {"error": sentence}}
    tools         [{name, description, inputSchema}] from tools/list (names normalised), or None
    ui_path       where its web page answers (base_path, /web or /), or None
    problems      {probe: sentence} for every probe that failed (a missing route included)
    harbor        for an OpenEnv × Harbor server: what rlx.live.harbor found (or None)
    checked_at    ISO 8601, UTC
    """
    report: dict = {"ok": False, "error": None, "openenv": False, "mode": None, "routes": [], "custom_routes": [],
                    "openapi": {}, "health": None, "metadata": None, "schema": None, "environments": [],
                    "task_api": {}, "tools": None, "ui_path": None, "problems": {}, "harbor": None,
                    "checked_at": now_iso()}
    problems = report["problems"]
    answered = False
    gone: list[str] = []  # set once the server timed out or could not be reached: the other probes would too

    def probe(name: str, call):
        nonlocal answered
        if gone:
            return None
        try:
            result = call()
        except SpaceRefused as exc:
            problems[name] = str(exc)
            return None
        except LiveError as exc:
            problems[name] = str(exc)
            answered = answered or exc.reason in ("status", "not_json")
            if exc.reason in ("timeout", "unreachable", "too_large") and not answered:
                gone.append(name)
            return None
        answered = True
        return result

    openapi = probe("openapi", lambda: _dict(client.get_json("/openapi.json", "The OpenAPI document"), "openapi"))
    paths = openapi.get("paths") if isinstance(openapi, dict) and isinstance(openapi.get("paths"), dict) else {}
    report["routes"] = _routes(paths)
    report["openapi"] = {"schemas": _schemas(openapi)}
    listed = {r["path"] for r in report["routes"]}
    report["custom_routes"] = [r for r in report["routes"] if not (r["protocol"] or r["task_api"] or r["ui"])]

    def maybe(path: str) -> bool:  # without an OpenAPI document, try every route; with one, only those listed
        return not paths or path in listed

    report["health"] = probe("health", lambda: client.get_json("/health", "The health check"))
    if maybe("/metadata"):
        report["metadata"] = probe("metadata", lambda: _dict(client.get_json("/metadata", "/metadata"), "/metadata"))
    if maybe("/schema"):
        report["schema"] = probe("schema", lambda: _dict(client.get_json("/schema", "/schema"), "/schema"))
    if maybe("/list_environments") or any(r["task_api"] for r in report["routes"]):
        names = probe("environments", lambda: _unless_not_implemented(
            lambda: client.get_json("/list_environments", "/list_environments"), []))
        report["environments"] = [n for n in (names or []) if isinstance(n, str) and _ENV_NAME.match(n)][
            :MAX_ENVIRONMENTS] if isinstance(names, list) else []
    for env in report["environments"] if not gone else []:
        try:
            report["task_api"][env] = {"splits": _splits(client.get_json(f"/{env}/splits", f"/{env}/splits"))}
        except LiveError as exc:
            if exc.status == 501:  # openenv 0.10 adds the routes to every server; 501 says it has no tasks
                continue
            report["task_api"][env] = {"error": str(exc)}
    report["environments"] = [e for e in report["environments"] if e in report["task_api"]] if not gone \
        else report["environments"]
    if maybe("/mcp"):
        report["tools"] = probe("tools", lambda: list_tools(client))
    report["ui_path"] = None if gone else _find_ui(client, base_path, problems)
    report["ok"] = answered
    has = listed | {p for p, key in (("/health", "health"), ("/metadata", "metadata"), ("/schema", "schema"))
                    if report[key] is not None}
    report["openenv"] = ({"/health", "/metadata", "/schema"} <= has
                         and (({"/reset", "/step"} <= listed) or "/mcp" in listed or report["tools"] is not None))
    if report["openenv"]:
        report["mode"] = "simulation" if {"/reset", "/step"} <= listed else "production"
    if not answered:
        report["error"] = next(iter(problems.values()), "The server did not answer.")
    report["harbor"] = harbor_facts(client, report)
    return report


def list_tools(client: SpaceClient) -> list[dict]:
    """tools/list over OpenEnv's plain JSON-RPC POST /mcp, names normalised to MCP's (inputSchema)."""
    answer = client.post_json("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                              "tools/list on /mcp")
    if not isinstance(answer, dict):
        raise LiveError("tools/list on /mcp answered something that is not a JSON-RPC response.", "not_json")
    if "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        raise LiveError(f"tools/list on /mcp answered an error: {str(error.get('message') or '')[:160]}.", "status")
    tools = (answer.get("result") or {}).get("tools") if isinstance(answer.get("result"), dict) else None
    if not isinstance(tools, list):
        raise LiveError("tools/list on /mcp answered without a list of tools.", "not_json")
    out = []
    for tool in tools[:MAX_TOOLS]:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            schema = tool.get("inputSchema", tool.get("input_schema"))
            out.append({"name": tool["name"][:120], "description": str(tool.get("description") or "")[:2000],
                        "inputSchema": schema if isinstance(schema, dict) else {"type": "object"}})
    return out


def _dict(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise LiveError(f"{what} answered JSON that is not an object.", "not_json")
    return value


def _routes(paths: dict) -> list[dict]:
    routes = []
    for path, item in list(paths.items())[:MAX_ROUTES]:
        if not isinstance(path, str) or not isinstance(item, dict):
            continue
        methods = [m.upper() for m in METHODS if isinstance(item.get(m), dict)]
        if not methods:
            continue
        operation = item[methods[0].lower()]
        routes.append({
            "path": path, "methods": methods, "summary": str(operation.get("summary") or "")[:200],
            "protocol": path in PROTOCOL_PATHS, "task_api": bool(_TASK_API_PATH.match(path)),
            "ui": path == "/web" or path.startswith("/web/"),
            "parameters": [_parameter(p) for p in operation.get("parameters") or [] if isinstance(p, dict)][:20],
            "request_schema": _request_schema(operation),
        })
    return routes


def _parameter(param: dict) -> dict:
    return {"name": str(param.get("name") or "")[:80], "in": str(param.get("in") or ""),
            "required": bool(param.get("required")),
            "schema": param.get("schema") if isinstance(param.get("schema"), dict) else {}}


def _request_schema(operation: dict) -> dict | None:
    body = operation.get("requestBody")
    content = body.get("content") if isinstance(body, dict) else None
    media = content.get("application/json") if isinstance(content, dict) else None
    schema = media.get("schema") if isinstance(media, dict) else None
    return schema if isinstance(schema, dict) else None


def _schemas(openapi) -> dict:
    components = openapi.get("components") if isinstance(openapi, dict) else None
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if not isinstance(schemas, dict) or len(json.dumps(schemas, default=str)) > 500_000:
        return {}
    return schemas


def _splits(value) -> list[dict]:
    """Task API splits as [{name, type?, num_tasks?, error?}]: plain names and Harbor's dicts alike."""
    if not isinstance(value, list):
        raise LiveError("The Task API's splits are not a list.", "not_json")
    out = []
    for item in value[:50]:
        if isinstance(item, str):
            out.append({"name": item[:200]})
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            split = {"name": item["name"][:200]}
            for key in ("type", "error"):
                if isinstance(item.get(key), str):
                    split[key] = item[key][:300]
            if isinstance(item.get("num_tasks"), int):
                split["num_tasks"] = item["num_tasks"]
            out.append(split)
    return out


def _find_ui(client: SpaceClient, base_path: str | None, problems: dict) -> str | None:
    """The server's web page: the README's base_path, then /web, then /; the first that answers a page (a
    redirect to a path on the same host counts, pointing at its target)."""
    candidates = []
    if base_path:
        try:
            client.url(base_path if base_path.startswith("/") else "/" + base_path)
            candidates.append(base_path if base_path.startswith("/") else "/" + base_path)
        except SpaceRefused:
            problems["base_path"] = (f"The README's base_path {str(base_path)[:80]!r} points off the Space's host; "
                                     "it is ignored.")
    candidates += [p for p in ("/web", "/") if p not in candidates]
    for path in candidates:
        try:
            answer = client.request("GET", path, what=f"The web page at {path}", same_host_redirects=True)
        except LiveError:
            continue
        if answer.location:
            return answer.location
        if answer.status == 200 and "html" in answer.content_type:
            return path
    return None


def _unless_not_implemented(call, empty):
    """`call()`, or `empty` when the server answers 501: a route it has but does not implement is absent."""
    try:
        return call()
    except LiveError as exc:
        if exc.status == 501:
            return empty
        raise
