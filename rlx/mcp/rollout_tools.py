"""MCP tools for the runs a repository ships (rollout files, eval results, agent traces): listed, and each trace
read with the grader's side withheld, as its page shows it. Offered only where the repository holds such files."""

from __future__ import annotations

from flask import url_for

from rlx.mcp.protocol import ToolError, ToolResult
from rlx.mcp.snippets import app_base_url
from rlx.mcp.task_text import task_as_text

NAMES = ("list_rollouts", "get_rollout")
_INDEX = {"type": "integer", "minimum": 0, "maximum": 10_000}


def tool_specs(tool) -> list[dict]:
    """The two tools' specs, built by the server's own `tool(name, title, description, properties, required)`."""
    return [
        tool("list_rollouts", "List recorded runs", "The repository's rollout files (rollouts, eval results, "
             "agent traces): each file's traces with their reward, model and the task each ran on. They are runs, "
             "not tasks.", {"file": {**_INDEX, "description": "One file's number, to list all of its traces."}}),
        tool("get_rollout", "Read a recorded run", "One trace in full: what the agent got, each turn with its tool "
             "calls beside their output, and the result; the grader's side withheld.",
             {"file": {**_INDEX, "description": "The file's number, as list_rollouts shows it."},
              "trace": {**_INDEX, "description": "The trace's number in that file."}}, ["file", "trace"]),
    ]


def list_rollouts(state, env_id: str, number) -> ToolResult:
    files = state.adapter.rollout_files(state.index)
    if not files:
        raise ToolError(f"{env_id} holds no rollout files.")
    if number is not None:
        entry = _file(files, env_id, number)
        lines = [f"{entry['path']} ({entry.get('label') or 'not drawn'}): {len(entry['traces']):,} traces"]
        lines += [_trace_line(number, t) for t in entry["traces"]]
        return ToolResult("\n".join(lines), structured={"file": _file_data(number, entry, every=True)})
    lines = [f"{len(files):,} rollout files in {env_id} (runs, not tasks); get_rollout reads one trace:"]
    for n, entry in enumerate(files):
        if not entry.get("format"):
            lines.append(f"- file {n}: {entry['path']}, not drawn: {entry.get('why')}")
            continue
        lines.append(f"- file {n}: {entry['path']} ({entry.get('label')}), {len(entry['traces']):,} traces")
        lines += ["  " + _trace_line(n, t) for t in entry["traces"][:5]]
        if len(entry["traces"]) > 5:
            lines.append(f"  … list_rollouts with file={n} lists them all")
    return ToolResult("\n".join(lines), structured={"files": [_file_data(n, e) for n, e in enumerate(files)]})


def get_rollout(state, env_id: str, number, trace) -> ToolResult:
    files = state.adapter.rollout_files(state.index)
    entry = _file(files, env_id, number)
    view = state.adapter.rollout_trace(state.env, state.index, number, trace)
    if view is None:
        raise ToolError(f"{entry['path']} has no trace {trace}; list_rollouts with file={number} lists them.")
    org, name = env_id.split("/", 1)
    page = app_base_url() + url_for("rollout_pages.rollout_trace", org=org, name=name, n=number, i=trace)
    text = task_as_text(view, env_id, page).replace(f"Task `{view.ref}` of", f"Trace {trace} of {entry['path']} in", 1)
    return ToolResult(text)


def _file(files: list[dict], env_id: str, number: int) -> dict:
    if not 0 <= number < len(files) or not files[number].get("format"):
        raise ToolError(f"{env_id} has no readable rollout file {number}; list_rollouts lists them.")
    return files[number]


def _trace_line(n: int, t: dict) -> str:
    bits = [f"trace {t['n']}: {t['title']}"]
    bits += [f"{k} {t[k]}" for k in ("reward", "model") if t.get(k) is not None]
    if t.get("task"):
        bits.append(f"task {t['task']}")
    return "- " + " · ".join(bits)


def _file_data(n: int, entry: dict, every: bool = False) -> dict:
    traces = entry.get("traces") or []
    return {"file": n, "path": entry["path"], "format": entry.get("format"), "label": entry.get("label"),
            "traces": [{k: t.get(k) for k in ("n", "title", "reward", "model", "task")}
                       for t in (traces if every else traces[:5])], "count": len(traces)}
