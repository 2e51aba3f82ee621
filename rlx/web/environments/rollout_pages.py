"""Rollouts found in a repository (rollout files, eval results, agent sessions), one page per file and one per
trace, drawn from the adapter's answers. They are never tasks: a trace links to the task it ran on."""

from __future__ import annotations

from flask import Blueprint, abort

from rlx.adapters import public
from rlx.web.environments.loaders import load_env
from rlx.http.render import render

bp = Blueprint("rollout_pages", __name__)
MAX_FILE_NUMBER = 10_000


def _file(state, org, name, n: int):
    files = state.adapter.rollout_files(state.index) if state.ready else []
    if not 0 <= n < min(len(files), MAX_FILE_NUMBER):
        abort(404, f"{org}/{name} has no rollout file {n}.")
    return files[n]


@bp.get("/d/<org>/<name>/rollouts/<int:n>")
def rollout_file(org: str, name: str, n: int):
    state = load_env(org, name)
    entry = _file(state, org, name, n)
    return render("pages/rollout_file.html", state=state, org=org, name=name, n=n, entry=entry)


@bp.get("/d/<org>/<name>/rollouts/<int:n>/<int:i>")
def rollout_trace(org: str, name: str, n: int, i: int):
    state = load_env(org, name)
    entry = _file(state, org, name, n)
    view = state.adapter.rollout_trace(state.env, state.index, n, i)
    if view is None:
        abort(404, f"{entry['path']} has no trace {i}.")
    listed = next((t for t in entry["traces"] if t["n"] == i), {})
    return render("pages/rollout_trace.html", state=state, org=org, name=name, n=n, i=i, entry=entry, view=view,
                  task_ref=listed.get("task"))


@bp.get("/api/env/<org>/<name>/rollouts")
def rollout_files_json(org: str, name: str):
    state = load_env(org, name)
    if not state.ready:
        abort(503, "This dataset is still being indexed.")
    files = state.adapter.rollout_files(state.index)
    return {"env": state.env.id, "files": [
        {"file": n, "path": f["path"], "format": f.get("format"), "label": f.get("label"), "why": f.get("why"),
         "problem": f.get("problem"), "records": f.get("records"),
         "traces": [{k: t.get(k) for k in ("n", "title", "reward", "model", "task")} for t in f.get("traces") or []]}
        for n, f in enumerate(files)]}


@bp.get("/api/env/<org>/<name>/rollouts/<int:n>/<int:i>")
def rollout_trace_json(org: str, name: str, n: int, i: int):
    state = load_env(org, name)
    if not state.ready:
        abort(503, "This dataset is still being indexed.")
    entry = _file(state, org, name, n)
    view = state.adapter.rollout_trace(state.env, state.index, n, i)
    if view is None:
        abort(404, f"{entry['path']} has no trace {i}.")
    return {"env": state.env.id, "file": n, "path": entry["path"], **public(view)}
