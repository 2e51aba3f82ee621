"""An environment's health check on the web: the environment page's section (each verdict's share, the list), the
button that starts the check of this revision on demand, its partial (polled while it runs), and its JSON."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, request, url_for

from rlx.http.error_answers import error_response
from rlx.http.origin import same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.render import render
from rlx.queue import get_redis
from rlx.runs import batch as batches
from rlx.runs import health, health_check, rollout_rules
from rlx.store import app_store
from rlx.web.environments.loaders import load_env

bp = Blueprint("env_health", __name__)
MAX_LISTED = 300


def health_view(state) -> dict | None:
    """What the environment page shows of this revision's check; None before any check."""
    store = app_store()
    check = health.find(store, state.env.id, state.env.revision)
    if check is None:
        return None
    found = health.verdicts(store, check)
    batch = batches.load(store, check.batch_id)
    running = batch is not None and batch.status == batches.RUNNING
    return {"check": check, "verdicts": found[:MAX_LISTED], "total": len(found), "shares": health.shares(found),
            "running": running, "batch_id": check.batch_id,
            "again": not running and health.worth_again(store, check, found)}


@bp.post("/d/<org>/<name>/health")
@same_origin_only
@rate_limited("writes")
def start_check(org: str, name: str):
    state = load_env(org, name, start_indexing=False)
    if not state.ready:
        return error_response(503, "This dataset is still being indexed; try again in a moment.", retry_after=5)
    try:
        rollout_rules.check_open()
    except rollout_rules.RolloutRefused as exc:
        return error_response(exc.status, str(exc), retry_after=exc.retry_after)
    runnable, cannot = health_check.plan(state.adapter, state.env, state.index)
    config = current_app.config["RLX"]
    health_check.start(app_store(), get_redis(), state.env.id, state.env.revision, runnable,
                       cannot, config.health_cap, config.health_budget, again=request.form.get("again") == "1")
    return redirect(url_for("envs.env_page", org=org, name=name) + "#health", 303)


@bp.get("/d/<org>/<name>/health")
def check_partial(org: str, name: str):
    """The health section alone (htmx polls it while the check runs; with JS off the page refreshes)."""
    state = load_env(org, name, start_indexing=False)
    response = render("partials/env_health.html", state=state, org=org, name=name,
                      health=health_view(state) if state.ready else None)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/env/<org>/<name>/health")
def check_json(org: str, name: str):
    response = current_app.json.response(_check_body(org, name))
    response.headers["Cache-Control"] = "no-store"  # a running check changes from one second to the next
    return response


def _check_body(org: str, name: str) -> dict:
    state = load_env(org, name, start_indexing=False)
    view = health_view(state) if state.ready else None
    if view is None:
        return {"env": state.env.id, "revision": state.env.revision, "checked": False, "verdicts": {}, "tasks": []}
    return {"env": state.env.id, "revision": state.env.revision, "checked": True, "running": view["running"],
            "batch": view["batch_id"], "verdicts": {s["verdict"]: s["n"] for s in view["shares"]},
            "tasks": [{k: v[k] for k in ("ref", "verdict", "why")} for v in view["verdicts"]]}
