"""Forms for a Space server's own routes, /s/<org>/<name>/routes (rlx.live.route_forms): plain HTML forms that work
with JS off. The cookies the server sets are kept on our side, one jar per visitor and Space (in Redis), and sent
back with that visitor's next calls; they never reach the visitor's browser."""

from __future__ import annotations

import hashlib
import json

from flask import Blueprint, abort, request

from rlx.live import LiveError, SpaceClient
from rlx.live.play_view import BadAction
from rlx.live.route_forms import call_route, route_forms
from rlx.queue import get_redis
from rlx.http.error_answers import error_response
from rlx.http.origin import same_origin_only
from rlx.http.render import render
from rlx.web.spaces.loaders import load_space
from rlx.web.spaces.pages import checked_server
from rlx.web.runs.owner import visitor_id

bp = Blueprint("space_routes", __name__)
JAR_TTL_S = 30 * 60


def _forms(record):
    base_url, report = checked_server(record)
    forms = route_forms(report)
    if not forms:
        abort(error_response(404, f"{record.id}'s server publishes no plain GET or POST routes of its own (OpenEnv's "
                                  "protocol routes are played in the playground)."))
    return base_url, forms


@bp.get("/s/<org>/<name>/routes")
def routes_page(org: str, name: str):
    record = load_space(org, name)
    _, forms = _forms(record)
    visitor_id(create=True)
    response = render("pages/space_routes.html", record=record, org=org, name=name, forms=forms, result=None,
                      chosen=None, values={})
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/s/<org>/<name>/routes")
@same_origin_only
def routes_call(org: str, name: str):
    record = load_space(org, name)
    base_url, forms = _forms(record)
    chosen = next((f for f in forms if f["id"] == request.form.get("route")), None)
    if chosen is None:
        abort(400, "That route is not one this server publishes.")
    jar_key = "rlx:routes:jar:" + hashlib.sha256(f"{visitor_id(create=True)}|{record.id}".encode()).hexdigest()[:32]
    db = get_redis()
    raw = db.get(jar_key)
    try:
        with SpaceClient(base_url) as client:
            result = call_route(client, chosen, request.form.to_dict(), json.loads(raw) if raw else None)
    except BadAction as exc:
        abort(400, str(exc))
    except LiveError as exc:
        abort(error_response(503, str(exc), retry_after=30))
    db.set(jar_key, json.dumps(result.pop("cookies")), ex=JAR_TTL_S)
    response = render("pages/space_routes.html", record=record, org=org, name=name, forms=forms, result=result,
                      chosen=chosen, values=request.form.to_dict())
    response.headers["Cache-Control"] = "no-store"
    return response
