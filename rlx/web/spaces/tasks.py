"""The Task API browser /s/<org>/<name>/tasks: a Space server's splits, a page of a split's tasks, one task; every
task with its answer-like fields dropped (rlx.live.task_api). Plain server-rendered pages: links, no JS needed."""

from __future__ import annotations

import json

from flask import Blueprint, abort, request

from rlx.live import LiveError, SpaceClient
from rlx.live import task_api
from rlx.http.errors import error_response
from rlx.http.render import render
from rlx.web.spaces.pages import _record, checked_server

bp = Blueprint("space_tasks", __name__)
PAGE = 20


@bp.get("/s/<org>/<name>/tasks")
def task_browser(org: str, name: str):
    record = _record(org, name)
    base_url, report = checked_server(record)
    environments = (report or {}).get("environments") or []
    if not environments:
        abort(error_response(404, f"{record.id}'s server offers no Task API (its last check found none)."))
    env = request.args.get("env") or environments[0]
    split = request.args.get("split") or ""
    start = _number("start", 0)
    index = _number("index", None)
    context = {"record": record, "org": org, "name": name, "environments": environments, "env": env,
               "split": split, "start": start, "page": PAGE, "splits": None, "listing": None, "task": None}
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
