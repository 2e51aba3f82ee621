"""The Task API browser /s/<org>/<name>/tasks: a Space server's splits, a page of a split's tasks, one task; every
task with its answer-like fields dropped (rlx.live.task_api). And each advertised task's own page,
/s/<org>/<name>/t/<split>/<index> (and /api/space/.../t/... as JSON), drawn by the Space adapter as a dataset row
is, answers withheld the same way. Plain server-rendered pages: links, no JS needed."""

from __future__ import annotations

import json

from flask import Blueprint, abort, request, url_for

from rlx.adapters import public
from rlx.adapters.openenv.live_tasks import advertised, make_ref
from rlx.adapters.registry import space_adapter

from rlx.live import LiveError, SpaceClient
from rlx.live import task_api
from rlx.http.error_answers import error_response
from rlx.http.render import render
from rlx.web.spaces.loaders import load_space
from rlx.web.spaces.pages import checked_server

bp = Blueprint("space_tasks", __name__)
PAGE = 20
DOWN_RETRY_S = 60


@bp.get("/s/<org>/<name>/tasks")
def task_browser(org: str, name: str):
    record = load_space(org, name)
    base_url, report = checked_server(record)
    environments = (report or {}).get("environments") or []
    if not environments:
        abort(error_response(404, f"{record.id}'s server offers no Task API (its last check found none)."))
    env = request.args.get("env") or environments[0]
    split = request.args.get("split") or ""
    start = _number("start", 0)
    index = _number("index", None)
    context = {"record": record, "org": org, "name": name, "environments": environments, "env": env,
               "split": split, "start": start, "page": PAGE, "splits": None, "listing": None, "task": None,
               "task_url": lambda i: url_for("space_tasks.task_page", org=org, name=name,
                                             ref=make_ref(report, env, split, i))}
    try:
        task_api.known_environment(report, env)
        with SpaceClient(base_url) as client:
            context["splits"] = task_api.list_splits(client, env)
            if split and index is not None:
                found = task_api.get_task(client, env, split, index)
                context["task"] = {"index": index, "withheld": found["withheld"],
                                   "text": json.dumps(found["task"], indent=2, ensure_ascii=False)[:200_000]}
            elif split:
                context["listing"] = task_api.list_tasks(client, env, split, start, PAGE)
    except LiveError as exc:
        status = 400 if exc.reason == "refused" else 404 if exc.status == 404 else 503
        abort(error_response(status, str(exc), retry_after=30 if status == 503 else None))
    response = render("pages/space_tasks.html", **context)
    response.headers["Cache-Control"] = "no-store"
    return response


def _number(key: str, default):
    raw = request.args.get(key)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or int(raw) > task_api.MAX_INDEX:
        abort(error_response(400, f"{key} must be a whole number from 0 to {task_api.MAX_INDEX:,}."))
    return int(raw)


@bp.get("/s/<org>/<name>/t/<path:ref>")
def task_page(org: str, name: str, ref: str):
    record, report, task_ref, view = _live_task(org, name, ref)
    count = advertised(report)[task_ref.env][task_ref.split]  # None when the server did not say
    near = lambda i: url_for("space_tasks.task_page", org=org, name=name,  # noqa: E731
                             ref=make_ref(report, task_ref.env, task_ref.split, i))
    response = render("pages/space_task.html", record=record, org=org, name=name, ref=ref, view=view,
                      task_ref=task_ref, count=count,
                      prev_url=near(task_ref.index - 1) if task_ref.index > 0 else None,
                      next_url=near(task_ref.index + 1) if count is None or task_ref.index + 1 < count else None,
                      play_url=url_for("playground.play_page", org=org, name=name, split=task_ref.split,
                                       index=task_ref.index))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/space/<org>/<name>/t/<path:ref>")
def task_json(org: str, name: str, ref: str):
    _, _, _, view = _live_task(org, name, ref)
    return public(view), 200, {"Cache-Control": "no-store"}


def _live_task(org: str, name: str, ref: str):
    """(record, check, the task's ref, its TaskView), or the request ends: 404 for a task the server does not
    advertise, 503 with Retry-After and one sentence when the server cannot be asked (asleep, down, failing)."""
    record = load_space(org, name)
    base_url, report = checked_server(record)
    if report and report.get("checking"):
        abort(error_response(503, f"{record.id}'s server is being checked by another visitor's request right now; "
                                  "try again in a few seconds.", retry_after=5))
    if not report or not report.get("ok"):
        abort(error_response(503, f"{record.id} is asleep or down, so its task cannot be read right now: wake it "
                                  "from its page, then try again in a minute.", retry_after=DOWN_RETRY_S))
    adapter = space_adapter()
    task_ref = adapter.live_task_ref(report, ref)
    if task_ref is None:
        abort(error_response(404, f"{record.id}'s server advertises no task {ref[:200]!r}."))
    try:
        with SpaceClient(base_url) as client:
            task = task_api.fetch_task(client, task_ref.env, task_ref.split, task_ref.index)
    except LiveError as exc:
        if exc.status == 404:
            abort(error_response(404, f"{record.id}'s server has no task {ref[:200]!r}."))
        abort(error_response(503, f"{record.id}'s server did not give this task ({exc}). Try again in a minute.",
                             retry_after=DOWN_RETRY_S))
    return record, report, task_ref, adapter.live_task(report, task_ref, task)
