"""/runs/mine: the visitor's own rollouts (this browser's session, or the signed-in account), with filters by
outcome, environment and agent, and a Stop button for the ones still running."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, request

from rlx.runs import rollouts
from rlx.store import app_store
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.http.render import render
from rlx.web.runs.owner import visitor_id

bp = Blueprint("rollouts", __name__)


@bp.get("/runs/mine")
def my_runs():
    try:
        chosen = rollouts.MineFilter.from_args(request.args)
    except ValueError as exc:
        abort(400, str(exc))
    store, me = app_store(), visitor_id()
    rows = rollouts.for_visitor(store, me, hidden_ids(), chosen, dataset_access=dataset_access) if me else []
    choices = rollouts.visitor_choices(store, me) if me else {"envs": [], "agents": [], "kinds": []}
    response = render("pages/my_runs.html", rows=rows, chosen=chosen, choices=choices, known=me is not None)
    response.headers["Cache-Control"] = "private, no-store"  # one visitor's page, never a shared cache's
    return response


@bp.get("/api/runs/mine")
def my_runs_json():
    try:
        chosen = rollouts.MineFilter.from_args(request.args)
    except ValueError as exc:
        abort(400, str(exc))
    me, store = visitor_id(), app_store()
    rows = rollouts.for_visitor(store, me, hidden_ids(), chosen, dataset_access=dataset_access) if me else []
    response = current_app.json.response({"runs": [{k: v for k, v in r.items() if k != "mine"} for r in rows]})
    response.headers["Cache-Control"] = "private, no-store"
    return response
