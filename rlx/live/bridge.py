"""A Space's server as an MCP tool server (rlx.mcp's ToolServer), served at /mcp/<org>/<name> by rlx.mcp's one
Streamable HTTP transport.

Its tools are, from its last check (rlx.live.space_checks):
- the server's own MCP tools, called over its plain JSON-RPC POST /mcp, answers renamed to MCP's fields
  (structured_content -> structuredContent, is_error -> isError, images kept as image content);
- reset, step and state, for an OpenEnv server in simulation mode without tools of its own: on one episode per
  MCP session (rlx.live.mcp_episodes), the server's own tools too; a value withheld once in any of a session's
  answers (its own tools' too) is masked in all its later ones; on a server without HTTP sessions (older
  OpenEnv) over its HTTP routes, which make a fresh environment per call;
- list_splits, list_tasks and get_task for its Task API, answer-like fields dropped;
- for a server that is not OpenEnv, one tool per published plain GET/POST route, with one cookie jar per MCP
  session (a login, then calls as that user).
"""

from __future__ import annotations

import json
import re

from rlx.adapters.withhold.keys import strip_answers
from rlx.live import mcp_episodes, task_api
from rlx.live.client import SpaceClient
from rlx.live.episode import Episode
from rlx.live.episode_answers import EpisodeAnswers
from rlx.live.errors import LiveError
from rlx.mcp.protocol import ToolError, ToolResult

MAX_ROUTE_TOOLS = 40
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_TOOL_NAME = re.compile(r"[^A-Za-z0-9_]+")
_PATH_PARAM = re.compile(r"\{([A-Za-z0-9_]+)\}")
_PARAM_VALUE = re.compile(r"^[A-Za-z0-9._~@:+-]{1,200}\Z")  # one path segment, nothing that climbs or leaves
_OBJECT = {"type": "object"}


class SpaceTools:
    """The tools of one Space, built from its check report; every call goes to `base_url` through SpaceClient.
    `redis` and `session` (a callable answering the MCP session's id, or None) give each MCP session its own
    episode and cookie jar; without them every call stands alone."""

    def __init__(self, record, base_url: str, report: dict, redis=None, session=None):
        self.record, self.base_url, self.report = record, base_url, report
        self.redis, self._session = redis, session or (lambda: None)
        self.episodes = mcp_episodes.Episodes(redis, record.id, base_url) if redis is not None else None
        self.name = f"hf-rl-explorer-space-{record.id.replace('/', '-')}"[:100]
        self.title = f"{record.id} (a Space's server, bridged)"
        self.instructions = (f"The tools of the Hugging Face Space {record.id}, called on its own server. "
                             "Answer-like fields (solutions, gold, expected values) are withheld.")
        self._tools: dict[str, tuple[dict, object]] = {}
        self._build()

    # --- the tool list ------------------------------------------------------------------------------

    def _build(self) -> None:
        report = self.report
        for tool in report.get("tools") or []:
            self._add({"name": tool["name"], "description": tool.get("description") or "",
                       "inputSchema": tool.get("inputSchema") or _OBJECT}, self._space_tool(tool["name"]))
        if not report.get("tools") and report.get("openenv") and report.get("mode") == "simulation":
            self._add_episode_tools()
        if self._task_envs():
            self._add_task_tools()
        if not report.get("openenv"):
            for route in (report.get("custom_routes") or [])[:MAX_ROUTE_TOOLS]:
                self._add_route_tool(route)

    def _add(self, spec: dict, call) -> None:
        if spec["name"] not in self._tools:  # the server's own tools win over ours of the same name
            self._tools[spec["name"]] = (spec, call)

    def _add_episode_tools(self) -> None:
        action = ((self.report.get("schema") or {}).get("action")) or _OBJECT
        self._add({"name": "reset", "description": "Start this session's episode again; the first observation.",
                   "inputSchema": {"type": "object", "properties": {"seed": {"type": "integer", "minimum": 0}}}},
                  lambda args: self._episode("reset", {k: v for k, v in args.items() if k == "seed"}))
        self._add({"name": "step", "description": "Take one action in this session's episode (call reset "
                   "first): the observation, reward and done.",
                   "inputSchema": {"type": "object", "properties": {"action": action}, "required": ["action"]}},
                  lambda args: self._episode("step", args.get("action")))
        self._add({"name": "state", "description": "The state of this session's episode.",
                   "inputSchema": _OBJECT}, lambda args: self._episode("state", None))

    def _task_envs(self) -> list[str]:
        """Task API environments whose splits answered (older servers list ones that say "not supported")."""
        answers = self.report.get("task_api") or {}
        return [env for env in self.report.get("environments") or [] if not (answers.get(env) or {}).get("error")]

    def _add_task_tools(self) -> None:
        envs = self._task_envs()
        env_prop = {"type": "string", "enum": envs, "description": "The Task API environment."}
        env_default = envs[0]
        self._add({"name": "list_splits", "description": "The Task API's splits (names and sizes).",
                   "inputSchema": {"type": "object", "properties": {"env": env_prop}}},
                  lambda args: self._task(lambda c, env: task_api.list_splits(c, env), args, env_default))
        self._add({"name": "list_tasks", "description": "A page of a split's tasks (answers withheld).",
                   "inputSchema": {"type": "object", "required": ["split"], "properties": {
                       "env": env_prop, "split": {"type": "string"},
                       "start": {"type": "integer", "minimum": 0, "default": 0},
                       "count": {"type": "integer", "minimum": 1, "maximum": task_api.MAX_PAGE, "default": 20}}}},
                  lambda args: self._task(lambda c, env: task_api.list_tasks(
                      c, env, str(args.get("split") or ""), _int(args, "start", 0), _int(args, "count", 20)),
                      args, env_default))
        self._add({"name": "get_task", "description": "One task of a split, by index (answers withheld).",
                   "inputSchema": {"type": "object", "required": ["split", "index"], "properties": {
                       "env": env_prop, "split": {"type": "string"}, "index": {"type": "integer", "minimum": 0}}}},
                  lambda args: self._task(lambda c, env: task_api.get_task(
                      c, env, str(args.get("split") or ""), _int(args, "index", 0)), args, env_default))

    def _add_route_tool(self, route: dict) -> None:
        method = "GET" if "GET" in route["methods"] else "POST" if "POST" in route["methods"] else None
        if method is None:
            return
        name = _TOOL_NAME.sub("_", f"{method.lower()}_{route['path'].strip('/')}").strip("_")[:64] or "get_root"
        params = {p["name"]: {**p["schema"], "description": f"{p['in']} parameter"}
                  for p in route.get("parameters") or [] if p["in"] in ("path", "query")}
        required = [p["name"] for p in route.get("parameters") or [] if p["required"] and p["in"] in ("path", "query")]
        properties = dict(params)
        if method == "POST":
            properties["body"] = route.get("request_schema") or _OBJECT
        self._add({"name": name, "description": f"{method} {route['path']}" + (f": {route['summary']}"
                                                                               if route.get("summary") else ""),
                   "inputSchema": {"type": "object", "properties": properties, "required": required}},
                  lambda args: self._route(method, route, args))

    # --- ToolServer ------------------------------------------------------------------------------------

    def list_tools(self) -> list[dict]:
        return [spec for spec, _ in self._tools.values()]

    def call_tool(self, name: str, arguments: dict) -> ToolResult:
        try:
            return self._tools[name][1](arguments)
        except LiveError as exc:
            raise ToolError(str(exc)) from None

    def session_ended(self, session_id: str) -> None:
        """The MCP session ended (DELETE): its episode is closed on the server, its cookies dropped."""
        if self.redis is not None:
            self.episodes.end(session_id)
            mcp_episodes.end_jar(self.redis, session_id)
            mcp_episodes.end_answers(self.redis, session_id)

    # --- calls -------------------------------------------------------------------------------------------

    def _client(self) -> SpaceClient:
        return SpaceClient(self.base_url)

    def _server_session(self) -> str | None:
        """The server's session for this MCP session (made on first use), or None when there is none to have."""
        mcp_session = self._session()
        if self.episodes is None or mcp_session is None or not self.report.get("openenv"):
            return None
        try:
            return self.episodes.session_for(mcp_session)
        except LiveError as exc:
            if exc.reason != "capacity":
                raise
            raise ToolError(f"{exc} An idle session's episode is closed after {mcp_episodes.IDLE_S} s; try again "
                            "then, or end another of your sessions.") from None

    def _episode(self, op: str, payload) -> ToolResult:
        upstream = self._server_session()
        if upstream is None:  # a server without HTTP sessions: its HTTP routes, a fresh environment per call
            if op == "state":
                return self._get("/state")
            return self._post(f"/{op}", payload if op == "reset" else {"action": payload})
        try:
            with Episode(self.base_url, session_id=upstream) as episode:
                if op == "reset":
                    mcp_episodes.end_answers(self.redis, self._session())  # a new episode
                    return self._episode_result(episode.reset(payload))
                return self._episode_result(episode.step(payload) if op == "step" else episode.state())
        except LiveError as exc:
            if "Unknown session_id" in str(exc) or exc.reason == "unreachable":
                self.episodes.forget(self._session())
                raise ToolError("This session's episode is gone from the server (closed after "
                                f"{mcp_episodes.IDLE_S} s without a call, or the server restarted): call reset to "
                                "start a new one.") from None
            raise

    def _episode_result(self, data) -> ToolResult:
        """An answer of this session's episode: what the episode withheld before is masked here too."""
        mcp_session = self._session()
        answers = EpisodeAnswers(mcp_episodes.answers_of(self.redis, mcp_session))
        clean, _ = answers.clean(data)
        mcp_episodes.keep_answers(self.redis, mcp_session, answers.values)
        return ToolResult(json.dumps(clean, ensure_ascii=False, indent=2),
                          structured=clean if isinstance(clean, dict) else {"items": clean})

    def _space_tool(self, tool_name: str):
        def call(arguments: dict) -> ToolResult:
            params = {"name": tool_name, "arguments": arguments}
            upstream = self._server_session()
            if upstream:
                params["session_id"] = upstream  # the same episode as this session's reset and step
            with self._client() as client:
                answer = client.post_json("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                   "params": params}, f"The tool {tool_name}")
            if not isinstance(answer, dict):
                raise LiveError(f"The tool {tool_name} answered something that is not JSON-RPC.", "not_json")
            mcp_session = self._session() if self.redis is not None else None
            answers = EpisodeAnswers(mcp_episodes.answers_of(self.redis, mcp_session)) if mcp_session else None
            if isinstance(answer.get("error"), dict):
                message = str(answer["error"].get("message") or "The tool failed.")[:2000]
                return ToolResult(answers.clean(message)[0] if answers else message, is_error=True)
            result = normalised_result(answer.get("result"), answers)
            if answers is not None:  # what this answer withheld stays masked in the session's later answers
                mcp_episodes.keep_answers(self.redis, mcp_session, answers.values)
            return result
        return call

    def _post(self, path: str, body) -> ToolResult:
        with self._client() as client:
            return _data_result(client.post_json(path, body, f"POST {path}"))

    def _get(self, path: str) -> ToolResult:
        with self._client() as client:
            return _data_result(client.get_json(path, f"GET {path}"))

    def _task(self, call, args: dict, env_default: str) -> ToolResult:
        env = task_api.known_environment(self.report, str(args.get("env") or env_default))
        with self._client() as client:
            return _data_result(call(client, env))

    def _route(self, method: str, route: dict, args: dict) -> ToolResult:
        def value(match):
            raw = str(args.get(match.group(1), ""))
            if not _PARAM_VALUE.match(raw) or raw in (".", ".."):
                raise ToolError(f"The path parameter {match.group(1)} must be one plain segment (letters, digits, "
                                "._~@:+-), at most 200 characters.")
            return raw
        path = _PATH_PARAM.sub(value, route["path"])
        names = {p["name"] for p in route.get("parameters") or [] if p["in"] == "query"}
        query = {k: str(v)[:500] for k, v in args.items() if k in names}
        if query:
            from urllib.parse import urlencode
            path += "?" + urlencode(query)
        mcp_session = self._session() if self.redis is not None else None
        cookies = mcp_episodes.jar(self.redis, mcp_session) if mcp_session else None
        with self._client() as client:
            answer = client.request(method, path, args.get("body") if method == "POST" else None,
                                    f"{method} {route['path']}", cookies=cookies)
        if mcp_session:
            mcp_episodes.keep_cookies(self.redis, mcp_session, answer.cookies)
        text = answer.body.decode("utf-8", errors="replace")
        try:
            data, _ = strip_answers(json.loads(text))
            text = json.dumps(data, ensure_ascii=False, indent=2)
        except ValueError:
            data = None
        return ToolResult(f"HTTP {answer.status}\n{text}", is_error=answer.status >= 400,
                          structured=data if isinstance(data, dict) else None)


def normalised_result(result, answers: EpisodeAnswers | None = None) -> ToolResult:
    """OpenEnv's tools/call result (snake_case, `meta`, `data`) as an MCP result; images as image content. With
    `answers` (an MCP session's), what the session withheld before is masked too, and what this withholds is kept."""
    clean = answers.clean if answers is not None else strip_answers
    if not isinstance(result, dict):
        return ToolResult(json.dumps(clean(result)[0], ensure_ascii=False))
    result, _ = clean(result)
    texts, others = [], []
    for block in result.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "image" and isinstance(block.get("data"), str):
            mime = str(block.get("mimeType") or block.get("mime_type") or "image/png")
            if mime in _IMAGE_TYPES:
                others.append({"type": "image", "data": block["data"], "mimeType": mime})
    structured = result.get("structuredContent", result.get("structured_content"))
    return ToolResult("\n".join(texts), is_error=bool(result.get("isError", result.get("is_error"))),
                      structured=structured if isinstance(structured, dict) else None, content=others or None)


def _data_result(data) -> ToolResult:
    clean, _ = strip_answers(data)
    return ToolResult(json.dumps(clean, ensure_ascii=False, indent=2),
                      structured=clean if isinstance(clean, dict) else {"items": clean})


def _int(args: dict, key: str, default: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{key} must be a whole number.")
    return value
