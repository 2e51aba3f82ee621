"""The Space page /s/<org>/<name>: the card, the runtime (live), its app, what its server offers, its files.

Drawn through the environment contract (rlx.adapters.openenv) with the same blocks and file viewer as datasets.
Live parts never hold the page: the runtime and the server check come as small partials htmx fetches (polling
while a Space starts); with JS off the page refreshes itself while a Space is starting, and "Check now" is a link.
"""

from __future__ import annotations

import re
import time

from flask import Blueprint, abort, redirect, request, url_for
from flask_htmx import make_response as htmx_response

from rlx.adapters import public
from rlx.adapters.openenv.live_sections import live_sections
from rlx.adapters.withhold.file_rules import withheld_file_reason
from rlx.auth.visitor import visitor_token
from rlx.live import SpaceRefused, check_space, public_app_url, space_base_url, verified_openenv
from rlx.live.space_checks import age_s, cached_check, is_fresh
from rlx.live.space_hosts import space_subdomain
from rlx.live.runtime import RestartRefused, WakeRefused, local_note, restart, space_runtime, wake
from rlx.queue import get_redis
from rlx.http.error_answers import error_response
from rlx.http.humanize import relative_date
from rlx.http.origin import same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.render import VARY, render, wants_fragment
from rlx.sources import app_source

from rlx.web.spaces.loaders import ADAPTER, env_and_index, load_space, local_hosts

bp = Blueprint("spaces", __name__)
RECHECK_AFTER_S = 600  # a running Space's page asks its server again when the last check is older than this
_PLAIN_PATH = re.compile(r"^/(?!/)[A-Za-z0-9._~/-]{0,200}\Z")  # a path on the Space's host, nothing else
DONE_WORDS = {"woken": "It was asked to wake up; Spaces usually take a minute or two to start.",
              "restarted": "It is restarting."}


def checked_server(record) -> tuple[str, dict | None]:
    """Where the Space's server answers (403 when we may not call it) and what it offers: its last check when that
    passed, else one made now (the routes and the Task API pages call the server, so a stale failure won't do)."""
    try:
        base_url = space_base_url(record, local_hosts())
    except SpaceRefused as exc:
        abort(403, str(exc))
    report = cached_check(get_redis(), record.id)
    if not report or report.get("checking") or not report.get("ok"):
        report = check_space(get_redis(), record, local_hosts())
    return base_url, report


def _live_context(record, report):
    verified = verified_openenv(report)
    age = age_s(report)
    age_words = relative_date(report.get("checked_at")) if report and report.get("checked_at") else None
    return {"report": report, "verified": verified, "check_age": age, "age_words": age_words,
            "live_sections": live_sections(report, age_words, verified, record.id)}


def _status_context(record):
    db = get_redis()
    runtime = space_runtime(db, app_source(), record, local_hosts(), visitor_token())
    return {"runtime": runtime, "note": local_note(db, record.id)}


@bp.get("/s/<org>/<name>")
def space_page(org: str, name: str):
    record = load_space(org, name)
    env, index, overview = env_and_index(record)
    db = get_redis()
    status = _status_context(record)
    report = cached_check(db, record.id)
    runtime = status["runtime"]
    if request.args.get("check") == "1" and runtime.running and not record.private:  # JS off: "Check now"
        report = check_space(db, record, local_hosts(), force=True)
    wants_check = runtime.running and not record.private and not is_fresh(report, RECHECK_AFTER_S)
    selected = request.args.get("f")
    file_view = None
    if selected is not None:
        file_view = ADAPTER.read_file(env, index, "", selected)
        if file_view is None:
            abort(404, f"{record.id} has no file {selected[:200]!r}.")
    app_url = public_app_url(record)
    context = dict(record=record, org=org, name=name, overview=overview, index=index, file_view=file_view,
                   tree=_tree(index), app_url=app_url, wants_check=wants_check, **status,
                   **_live_context(record, report),
                   file_url=lambda path: url_for("spaces.space_page", org=org, name=name, f=path) + "#viewer",
                   full_view_url=lambda path: url_for("spaces.space_page", org=org, name=name, f=path, view="full"))
    context["said"] = DONE_WORDS.get(request.args.get("done", ""))
    context["embed_url"] = _embed_url(app_url, report, record) if runtime.running and not runtime.local else None
    context["unreachable"] = _unreachable(report) and runtime.running
    if request.args.get("view") == "full" and file_view is not None:
        return render("pages/space_file.html", **context)
    response = render("pages/space.html", fragment="viewer", **context)
    response.headers["Cache-Control"] = "no-store"
    return response


def _embed_url(app_url, report, record):
    """The app as the Hub shows it: its web page (found by the check, else the README's base_path) on its own
    public host; None when it has no address of its own, or when the last check could not reach it (a frame that
    cannot load is a grey box, not an app)."""
    if not app_url or not (report or {}).get("ok"):
        return None
    path = (report or {}).get("ui_path") or str((record.card or {}).get("base_path") or "/")
    return app_url + (path if _PLAIN_PATH.match(path) and ".." not in path else "/")


def _unreachable(report) -> bool:
    """The last check found no server at the Space's address (the Hub may still list it as running)."""
    return bool(report) and not report.get("ok") and not report.get("checking") and "could not be reached" in (
        report.get("error") or "")


def _tree(index):
    """Every file of the Space as one indented list (its tree is small and fully listed), withheld ones marked."""
    entries = [{"path": p, "type": t, "size": s, "withheld": withheld_file_reason(p, is_dir=t == "directory")}
               for p, t, s in index.summary.get("files") or []]
    return sorted(entries, key=lambda e: e["path"].split("/"))


@bp.get("/s/<org>/<name>/status")
def space_status(org: str, name: str):
    """The runtime alone, polled by htmx while the Space starts; when it starts running the page reloads (its
    app and its server's offer appear)."""
    record = load_space(org, name)
    context = _status_context(record)
    if request.args.get("was") and request.args["was"] != context["runtime"].stage and context["runtime"].running:
        return htmx_response("", 200, refresh=True)
    response = render("partials/space_status.html", record=record, org=org, name=name, **context)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/s/<org>/<name>/live")
def space_live(org: str, name: str):
    """What the server offers, checked now when the last check is stale (the page loads this by itself), with the
    heading's kind line sent again out of band: what the check learnt replaces what the tags declared."""
    record = load_space(org, name)
    db = get_redis()
    report = check_space(db, record, local_hosts(), force=request.args.get("fresh") == "1",
                         max_age=RECHECK_AFTER_S)
    local = space_subdomain(record) in dict(local_hosts())
    extra = {"embed_url": None if local else _embed_url(public_app_url(record), report, record)}
    if _unreachable(report):  # the runtime line is sent again: "running" alone would contradict the check
        extra.update(_status_context(record))
        extra["unreachable"] = extra["runtime"].running
    response = render("partials/space_live.html", record=record, org=org, name=name, wants_check=False, oob=True,
                      **extra, **_live_context(record, report))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/s/<org>/<name>/wake")
@same_origin_only
@rate_limited("wake")
def space_wake(org: str, name: str):
    record = load_space(org, name)
    try:
        message = wake(get_redis(), record, local_hosts())
    except WakeRefused as exc:
        abort(error_response(429, str(exc), retry_after=exc.retry_after))
    except SpaceRefused as exc:
        abort(403, str(exc))
    return _after_action(record, org, name, message)


@bp.post("/s/<org>/<name>/restart")
@same_origin_only
@rate_limited("wake")
def space_restart(org: str, name: str):
    record = load_space(org, name)
    try:
        restart(get_redis(), app_source(), record, visitor_token())
    except RestartRefused as exc:
        abort(error_response(exc.status, str(exc), retry_after=exc.retry_after))
    return _after_action(record, org, name, f"{record.id} is restarting.")


def _after_action(record, org, name, message):
    if wants_fragment("space-status"):
        context = _status_context(record)
        return render("partials/space_status.html", record=record, org=org, name=name, message=message, **context)
    done = "woken" if "wake" in message else "restarted"  # a code, not the sentence: pages never echo free text
    response = redirect(url_for("spaces.space_page", org=org, name=name, done=done), code=303)
    response.vary.update(VARY)
    return response


@bp.get("/api/space/<org>/<name>")
def space_json(org: str, name: str):
    record = load_space(org, name)
    status = _status_context(record)
    report = cached_check(get_redis(), record.id)
    runtime = status["runtime"]
    return {"id": record.id, "sdk": record.sdk, "likes": record.likes, "app_url": public_app_url(record),
            "runtime": {"stage": runtime.stage, "hardware": runtime.hardware, "requested": runtime.requested,
                        "error": runtime.error},
            "verified_openenv": verified_openenv(report),
            "check": public({k: v for k, v in (report or {}).items() if k not in ("openapi",)}) if report else None}
