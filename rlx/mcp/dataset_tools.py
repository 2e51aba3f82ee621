"""MCP for every environment: the tools that read a dataset's tasks, whatever its format, through its adapter.

describe, list_tasks, search_tasks, get_task, read_file and random_task, plus the adapter's own. Everything
comes from the same index, task views and files as the pages, so what a page withholds stays withheld here. A
dataset not indexed yet answers with the indexing job's progress (the job is started, as the page does).
"""

from __future__ import annotations

import math
import secrets

from flask import url_for

from rlx.adapters.blocks import to_text
from rlx.adapters.paths import safe_relpath
from rlx.mcp import rollout_tools
from rlx.mcp.protocol import ToolError, ToolResult
from rlx.mcp.snippets import app_base_url
from rlx.mcp.task_text import row_data, row_line, task_as_text
from rlx.queue.outage import retry_sentence
from rlx.adapters.task_search import TaskQuery, search_index
from rlx.store import app_store

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
MAX_PAGE = 10_000
MAX_FILTER_VALUES = 24
READ_CHUNK = 60_000  # characters of a file per read_file call; `offset` reads on
BUILTIN = ("describe", "list_tasks", "search_tasks", "get_task", "read_file", "random_task", *rollout_tools.NAMES)

_PAGING = {
    "page": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1, "description": "Page number."},
    "page_size": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": DEFAULT_PAGE_SIZE,
                  "description": f"Tasks per page (at most {MAX_PAGE_SIZE})."},
}
_REF = {"type": "string", "maxLength": 500, "description": "The task's ref, as list_tasks shows it."}
_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


class DatasetTools:
    """The tool server for one environment (an EnvState: its loaded index, as the pages load it)."""

    def __init__(self, state):
        self.state = state
        record = state.env.record
        self.env_id = record.id
        self.name = self.env_id
        self.title = f"{record.pretty_name} ({state.adapter.label} tasks)"
        count = f"{len(state.index.rows):,} tasks" if state.ready else "tasks still being indexed"
        self.instructions = (f"Read the tasks of the {state.adapter.label} dataset {self.env_id} ({count}) exactly "
                             "as an agent gets them, with answers withheld. Start with describe; then list_tasks "
                             "or search_tasks, get_task for one task in full, read_file for its files.")

    # --- the tool list ---------------------------------------------------------------------------------

    def list_tools(self) -> list[dict]:
        filters = self._filters_schema()
        tools = [
            _tool("describe", "Describe the environment", "What this environment is, how many tasks it has, how "
                  "they are graded, and the filters list_tasks accepts.", {}),
            _tool("list_tasks", "List tasks", "Tasks, one line each (ref, title, brief, facets), a page at a time, "
                  "optionally narrowed by facet filters.", {**_PAGING, "filters": filters}),
            _tool("search_tasks", "Search tasks", "Tasks whose ref, title, brief or tags contain every word of "
                  "the query (plain substrings, case-insensitive), a page at a time.",
                  {"query": {"type": "string", "minLength": 1, "maxLength": 200}, **_PAGING, "filters": filters},
                  ["query"]),
            _tool("get_task", "Read a task", "One task in full, as the agent gets it: instruction, how it is "
                  "graded, what it runs in, metadata and files, with the list of what was withheld.",
                  {"ref": _REF}, ["ref"]),
            _tool("read_file", "Read a task's file", f"One file of a task, {READ_CHUNK:,} characters at a time "
                  "(offset reads on). Withheld files (solutions, graders' answers) are refused with the reason.",
                  {"ref": _REF, "path": {"type": "string", "maxLength": 1000, "description": "Path inside the "
                                         "task, as get_task's file list shows it."},
                   "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Characters to skip."}},
                  ["ref", "path"]),
            _tool("random_task", "Read a random task", "One task picked at random (among those the filters "
                  "keep), in full as get_task gives it.", {"filters": filters}),
        ]
        if self.state.ready and self.state.adapter.rollout_files(self.state.index):
            tools += rollout_tools.tool_specs(_tool)
        for extra in self.state.adapter.mcp_tools(self.state.env)[:32]:
            if isinstance(extra, dict) and extra.get("name") not in BUILTIN and isinstance(extra.get("name"), str):
                tools.append({"name": extra["name"], "description": str(extra.get("description", "")),
                              "inputSchema": extra.get("inputSchema") or {"type": "object", "properties": {}}})
        return tools

    def _filters_schema(self) -> dict:
        schema = {"type": "object", "description": "Facet filters: {facet: value or [values]}; a task must match "
                  "one value of every facet given.",
                  "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "array", "items": {
                      "type": "string"}}]}}
        facets = self._facets()
        if facets:
            schema["properties"] = {key: {"description": f"{label}: one of {', '.join(v for v, _, _ in values)}",
                                          "anyOf": [{"type": "string"}, {"type": "array",
                                                                         "items": {"type": "string"}}]}
                                    for key, label, values in facets}
        return schema

    def _facets(self):
        if self.state.index is None:
            return []
        return search_index(self.state.index, TaskQuery("", {}, 1))[1]

    # --- calls -------------------------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: dict) -> ToolResult:
        if name in BUILTIN:
            # A partial index (a big repository published level by level) can already be listed, as on the page.
            self._require_index(partial_ok=name in ("list_tasks", "search_tasks"))
            schema = next((t["inputSchema"] for t in self.list_tools() if t["name"] == name), None)
            if schema is None:
                raise ToolError(f"{self.env_id} has no {name} tool: it holds no rollout files.")
            unknown = sorted(set(arguments) - set(schema["properties"]))
            if unknown:
                takes = ", ".join(schema["properties"]) or "no arguments"
                raise ToolError(f"{name} has no argument {unknown[0][:60]!r}; it takes: {takes}.")
            if name == "list_rollouts":
                number = arguments.get("file")
                return rollout_tools.list_rollouts(self.state, self.env_id, None if number is None else
                                                   _int(arguments, "file", 0, 0, 10_000))
            if name == "get_rollout":
                return rollout_tools.get_rollout(self.state, self.env_id, _int(arguments, "file", 0, 0, 10_000),
                                                 _int(arguments, "trace", 0, 0, 10_000))
            return getattr(self, "_" + name)(arguments)
        self._require_index()
        try:
            text = self.state.adapter.call_mcp_tool(self.state.env, self.state.index, name, arguments)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(text)

    def _require_index(self, partial_ok: bool = False) -> None:
        state = self.state
        outage = getattr(state, "outage", None)
        when = f" {retry_sentence(outage['retry_at'])}" if outage else ""
        if state.failure:
            raise ToolError(f"Indexing {self.env_id} failed: {state.failure}{when} Open {self._page_url()} to try "
                            "again.")
        if outage and not state.ready and not (partial_ok and state.index is not None):
            raise ToolError(f"{self.env_id} is not indexed yet, and the Hub is failing: {outage['message']}{when}")
        if not state.ready and not (partial_ok and state.index is not None):
            raise ToolError(f"{self.env_id} is not indexed yet; indexing has started "
                            f"({_progress_sentence(state.progress)}). Call this tool again in a few seconds.")

    def _describe(self, arguments: dict) -> ToolResult:
        state, record = self.state, self.state.env.record
        head = [f"# {record.pretty_name}", f"{self.env_id}: a {state.adapter.label} dataset of "
                f"{len(state.index.rows):,} tasks.", f"Page: {self._page_url()}"]
        if state.index.revision:
            head.append(f"Read from revision {state.index.revision[:12]}.")
        parts = ["\n".join(head)]
        overview = state.adapter.overview(state.env, state.index)  # the sections the environment page shows
        parts += [f"# {s.title}\n" + "\n\n".join(to_text(b) for b in s.blocks) for s in overview]
        facets = self._facets()
        if facets:
            parts.append("# Filters for list_tasks, search_tasks and random_task\n" + "\n".join(
                f"- {key} ({label}): " + ", ".join(f"{v} ({n})" for v, n, _ in values) for key, label, values in facets))
        files = state.adapter.rollout_files(state.index)
        if files:
            traces = sum(len(f.get("traces") or []) for f in files)
            parts.append(f"# Recorded runs\n{len(files):,} rollout files ({traces:,} traces) in this repository: runs, "
                         "not tasks. list_rollouts lists them, get_rollout reads one.")
        parts.append(self._health())
        parts.append("Answers (solutions, expected outputs, graders' data) are withheld everywhere; get_task says "
                     "what it withheld from each task.")
        return ToolResult("\n\n".join(parts))

    def _health(self) -> str:
        """This revision's health check (oracle twice, nop once per task), as its verdicts' counts."""
        from rlx.runs import health

        store = app_store()
        check = health.find(store, self.env_id, self.state.env.revision)
        if check is None:
            return "# Health\nNot checked yet at this revision (the environment page can start a check)."
        found = health.verdicts(store, check)
        counts = ", ".join(f"{s['verdict']} {s['n']}" for s in health.shares(found))
        problems = [f"- {f['ref']}: {f['verdict']} ({f['why']})" for f in found
                    if f["verdict"] in (health.ORACLE_FAILS, health.NOP_PASSES, health.FLAKY)][:20]
        return "\n".join([f"# Health (oracle twice and nop once per task, {len(found)} tasks)", counts, *problems])

    def _list_tasks(self, arguments: dict, words: str = "") -> ToolResult:
        page, size = _int(arguments, "page", 1, 1, MAX_PAGE), _int(arguments, "page_size", DEFAULT_PAGE_SIZE, 1,
                                                                    MAX_PAGE_SIZE)
        rows, _ = search_index(self.state.index, TaskQuery(words, self._selected(arguments), 1))
        pages = max(1, math.ceil(len(rows) / size))
        if page > pages:
            raise ToolError(f"Page {page} is past the last page ({pages}) of {len(rows):,} tasks.")
        shown = rows[(page - 1) * size: page * size]
        what = f" matching “{words}”" if words else ""
        lines = [f"{len(rows):,} tasks{what}; page {page} of {pages}:"] + [row_line(r) for r in shown]
        if not rows:
            lines = [f"No task{what} matches these filters." if arguments.get("filters") else f"No task{what}."]
        elif page < pages:
            lines.append(f"More: call again with page={page + 1}.")
        if not self.state.ready:
            lines.append(f"Indexing is still running ({_progress_sentence(self.state.progress)}): more tasks may "
                         "follow, and get_task answers once it is done.")
        data = {"total": len(rows), "page": page, "pages": pages, "tasks": [row_data(r) for r in shown]}
        return ToolResult("\n".join(lines), structured=data)

    def _search_tasks(self, arguments: dict) -> ToolResult:
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip() or len(query) > 200:
            raise ToolError("query must be a non-empty string of at most 200 characters.")
        return self._list_tasks(arguments, " ".join(query.split()))

    def _get_task(self, arguments: dict) -> ToolResult:
        ref = self._ref(arguments)
        view = self.state.adapter.task(self.state.env, self.state.index, ref)
        if view is None:
            raise ToolError(f"Task {ref!r} could not be read.")
        return ToolResult(task_as_text(view, self.env_id, self._page_url(ref)))

    def _random_task(self, arguments: dict) -> ToolResult:
        rows, _ = search_index(self.state.index, TaskQuery("", self._selected(arguments), 1))
        if not rows:
            raise ToolError("No task matches these filters.")
        return self._get_task({"ref": rows[secrets.randbelow(len(rows))].ref})

    def _read_file(self, arguments: dict) -> ToolResult:
        ref = self._ref(arguments)
        raw = arguments.get("path")
        path = safe_relpath(raw) if isinstance(raw, str) and len(raw) <= 1000 else None
        if not path:
            raise ToolError("path must be a relative path inside the task, such as instruction.md.")
        offset = _int(arguments, "offset", 0, 0, 10**9)
        view = self.state.adapter.read_file(self.state.env, self.state.index, ref, path)
        if view is None:
            raise ToolError(f"Task {ref!r} has no file {path!r}; get_task lists its files.")
        if view.withheld:
            raise ToolError(f"{path} is withheld: {view.withheld}")
        if view.binary or view.text is None:
            raise ToolError(f"{path} is a binary or very large file ({view.size:,} bytes); it cannot be read as "
                            "text here.")
        text = view.text
        if offset > len(text):
            raise ToolError(f"offset {offset:,} is past the end of {path} ({len(text):,} characters).")
        chunk, end = text[offset: offset + READ_CHUNK], min(len(text), offset + READ_CHUNK)
        head = f"{path} ({view.size:,} bytes)"
        if offset or end < len(text):
            head += f", characters {offset:,} to {end:,} of {len(text):,}"
        tail = f"\n[more: call again with offset={end}]" if end < len(text) else ""
        if view.truncated and end >= len(text):
            tail += "\n[the file is longer than this server shows]"
        return ToolResult(f"{head}\n```\n{chunk}\n```{tail}")

    # --- argument checks ---------------------------------------------------------------------------------

    def _ref(self, arguments: dict) -> str:
        ref = arguments.get("ref")
        if not isinstance(ref, str) or not ref or len(ref) > 500:
            raise ToolError("ref must be a task's ref (a string), as list_tasks shows it.")
        if not self.state.adapter.has_task(self.state.env, self.state.index, ref):
            raise ToolError(f"There is no task {ref[:200]!r} in {self.env_id}; list_tasks or search_tasks show "
                            "the refs.")
        return ref

    def _selected(self, arguments: dict) -> dict[str, set[str]]:
        filters = arguments.get("filters") or {}
        if not isinstance(filters, dict):
            raise ToolError('filters must be an object such as {"difficulty": "hard"}.')
        facets = {key: label for key, label, _ in self._facets()}
        selected, count = {}, 0
        for key, value in filters.items():
            if key not in facets:
                known = ", ".join(facets) or "none"
                raise ToolError(f"There is no filter {str(key)[:60]!r} here. Filters: {known}.")
            values = value if isinstance(value, list) else [value]
            if not values or not all(isinstance(v, str) and 0 < len(v) <= 200 for v in values):
                raise ToolError(f"The {key} filter takes a string or a list of strings.")
            count += len(values)
            if count > MAX_FILTER_VALUES:
                raise ToolError(f"At most {MAX_FILTER_VALUES} filter values in all.")
            selected[key] = set(values)
        return selected

    def _page_url(self, ref: str | None = None) -> str:
        org, name = self.env_id.split("/", 1)
        path = (url_for("tasks.task_page", org=org, name=name, ref=ref) if ref
                else url_for("envs.env_page", org=org, name=name))
        return app_base_url() + path


def _tool(name: str, title: str, description: str, properties: dict, required: list | None = None) -> dict:
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"name": name, "title": title, "description": description, "inputSchema": schema,
            "annotations": {**_READ_ONLY, "title": title}}


def _int(arguments: dict, key: str, default: int, low: int, high: int) -> int:
    value = arguments.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value):
        raise ToolError(f"{key} must be a whole number from {low} to {high:,}.")
    if not low <= value <= high:
        raise ToolError(f"{key} must be from {low} to {high:,}, not {value}.")
    return int(value)


def _progress_sentence(progress: dict | None) -> str:
    steps = (progress or {}).get("steps") or []
    running = next((s for s in steps if s.get("state") == "running"), None)
    if running is None:
        return "waiting for a worker"
    if running.get("total"):
        return f"{running['name']}: {running.get('done', 0):,} of {running['total']:,}"
    return f"{running['name']}"
