"""The task page /t/<org>/<name>/<ref>: the task as the agent gets it, how it is graded, its files."""

from __future__ import annotations

import posixpath
import secrets

from flask import Blueprint, abort, redirect, request, url_for

from rlx.adapters import public
from rlx.adapters.paths import safe_relpath
from rlx.auth.visitor import visitor_token
from rlx.runs import rollout_rules, rollouts
from rlx.runs.access import options_for_dataset
from rlx.runs.sandboxes import for_visitor
from rlx.sources.errors import Unavailable
from rlx.store import app_store
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.loaders import load_env
from rlx.http.render import render, render_partial_or_page
from rlx.web.runs.owner import visitor_id

bp = Blueprint("tasks", __name__)

# The tree opens at most this many folders and this deep by itself (a walked task's folders each cost the source
# a listing); the rest show a "list" link that opens them on demand.
TREE_FOLDERS_OPENED = 40
TREE_DEPTH = 2


def _neighbours(state, ref):
    """Previous and next task ({ref, title}), this task's position and the count, as the adapter orders them."""
    prev_ref, next_ref, position, count = state.adapter.neighbours(state.env, state.index, ref)
    titles = {r.ref: r.title for r in state.index.rows} if (prev_ref or next_ref) else {}
    near = lambda r: {"ref": r, "title": titles.get(r, r)} if r else None  # noqa: E731
    return near(prev_ref), near(next_ref), position, count


def _load_task(org, name, ref):
    state = load_env(org, name)
    if state.index is None or not state.adapter.has_task(state.env, state.index, ref):
        if state.index is None or state.index.complete:
            abort(404, f"{org}/{name} has no task {ref!r}.")
    return state


def _tree(state, ref):
    """The task's files as one indented list: every folder the index knows, walked breadth first; a folder whose
    children are not known yet (a walked task) is marked `unlisted` and lists itself when opened."""
    adapter, env, index = state.adapter, state.env, state.index
    entries, queue, opened = [], [""], 0
    while queue and opened < TREE_FOLDERS_OPENED and len(entries) < 5000:
        try:
            children = adapter.list_folder(env, index, ref, queue.pop(0)) or []
        except Unavailable:
            break  # a walked task's folder needs the source: the page shows what is known, the rest opens later
        opened += 1
        entries.extend(children)
        queue.extend(c["path"] for c in children
                     if c["type"] == "directory" and not c["withheld"] and c["path"].count("/") < TREE_DEPTH)
    ordered = sorted(entries, key=lambda e: e["path"].split("/"))
    listed_dirs = {posixpath.dirname(e["path"]) for e in ordered}
    for e in ordered:
        e["unlisted"] = e["type"] == "directory" and e["path"] not in listed_dirs and not e["withheld"]
    return ordered


@bp.get("/t/<org>/<name>/<path:ref>")
def task_page(org: str, name: str, ref: str):
    return render_task_page(org, name, ref)


def render_task_page(org: str, name: str, ref: str, status: int = 200, **form_state):
    """The task page; `form_state` (form_error, form_values) refills a run form the server refused (JS off)."""
    state = _load_task(org, name, ref)
    row = next((r for r in state.index.rows if r.ref == ref), None)
    view = state.adapter.task(state.env, state.index, ref) if state.ready else None
    prev_row, next_row, position, count = _neighbours(state, ref)
    raw_path = request.args.get("f")
    selected = safe_relpath(raw_path) if raw_path is not None else None
    if raw_path is not None and not selected:
        abort(404, "That path is not inside this task.")
    file_view = None
    if selected and state.ready:
        file_view = state.adapter.read_file(state.env, state.index, ref, selected)
        if file_view is None:
            abort(404, f"This task has no file {selected!r}.")
    aliases = list(state.adapter.aliases(state.env, state.index, ref)) if state.ready else []
    context = dict(
        state=state, org=org, name=name, ref=ref, row=row, view=view, prev_row=prev_row, next_row=next_row,
        aliases=aliases, rollouts=_rollouts(state.env.id, ref, aliases),
        position=position, count=count, file_view=file_view,
        run_options=options_for_dataset(state.env.record, rollout_rules.offer(for_visitor(
            state.adapter.run_options(state.env, state.index, ref) if state.ready else [],
            signed_in=visitor_token() is not None))),
        rollouts_off=rollout_rules.switched_off(), repo_traces=_repo_traces(state, ref),
        tree=_tree(state, ref) if state.ready else [], **_tree_urls(org, name, ref), **form_state,
    )
    if request.args.get("view") == "full" and file_view is not None:
        response = render("pages/file.html", **context)
    else:
        response = render("pages/task.html", fragment="viewer", status=status, **context)
    if state.stale or form_state:
        response.headers["Cache-Control"] = "no-store"
    elif rollouts.lists_own_runs(context["rollouts"]):
        response.headers["Cache-Control"] = "private, no-store"  # this visitor's runs: never a shared cache's
    return response


def _repo_traces(state, ref: str) -> list[dict]:
    """The traces of this task among the rollout files its repository ships ({n, i, title, reward, path}): links
    only; a graded completion never stands on the task page itself."""
    if not state.ready:
        return []
    return [{"n": n, "i": t["n"], "title": t["title"], "reward": t.get("reward"), "path": f["path"]}
            for n, f in enumerate(state.adapter.rollout_files(state.index)) for t in f.get("traces", [])
            if t.get("task") == ref][:50]


def _rollouts(env_id: str, ref: str, aliases) -> list[dict]:
    """This task's runs and its twins' (aliases share their rollouts), as this visitor may see them."""
    return rollouts.for_tasks(app_store(), [(env_id, ref), *aliases], visitor_id(),
                              hidden_ids(), dataset_access=dataset_access)


@bp.get("/d/<org>/<name>/random")
def random_task(org: str, name: str):
    """A task picked at random (within `near`'s split for a rows dataset), as a redirect to its page."""
    state = load_env(org, name)
    if not state.ready:
        return redirect(url_for("envs.env_page", org=org, name=name), code=303)
    near = request.args.get("near", "")[:300] or None
    ref = state.adapter.random_ref(state.env, state.index, near, secrets.randbelow)
    if ref is None:
        abort(404, f"{org}/{name} has no tasks to pick from.")
    response = redirect(url_for("tasks.task_page", org=org, name=name, ref=ref), code=303)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/t/<org>/<name>/<path:ref>/folder")
def task_folder(org: str, name: str, ref: str):
    """One folder of a task, listed on demand (a walked dataset's folders are not in its index)."""
    state = _load_task(org, name, ref)
    folder = safe_relpath(request.args.get("p", ""))
    if folder is None or not state.ready:
        abort(404, "That folder is not inside this task.")
    entries = state.adapter.list_folder(state.env, state.index, ref, folder)
    if entries is None:
        abort(404, f"This task has no folder {folder!r}.")
    return render_partial_or_page("partials/folder.html", "pages/task_folder.html", entries=entries,
                                  org=org, name=name, ref=ref, folder=folder, state=state, **_tree_urls(org, name, ref))


def _tree_urls(org: str, name: str, ref: str) -> dict:
    """The links a task's file tree draws: a file in the viewer, a task nested inside, a folder listed on demand."""
    return {"file_url": lambda path: url_for("tasks.task_page", org=org, name=name, ref=ref, f=path) + "#viewer",
            "task_url": lambda task: url_for("tasks.task_page", org=org, name=name, ref=task),
            "folder_url": lambda path: url_for("tasks.task_folder", org=org, name=name, ref=ref, p=path)}


@bp.get("/api/task/<org>/<name>/<path:ref>")
def task_json(org: str, name: str, ref: str):
    state = _load_task(org, name, ref)
    if not state.ready:
        abort(503, "This dataset is still being indexed.")
    view = state.adapter.task(state.env, state.index, ref)
    if view is None:
        abort(404, f"{org}/{name} has no task {ref!r}.")
    body = public(view)
    if state.stale:
        body["stale"] = state.stale
    aliases = list(state.adapter.aliases(state.env, state.index, ref))
    body["aliases"] = [{"env": env_id, "ref": alias} for env_id, alias in aliases]
    body["rollouts"] = _rollouts(state.env.id, ref, aliases)
    return body
