"""Rollouts on the web: the run form's POST, the run page /r/<id>, its live stream (SSE), and Stop.

The web process never runs a trial: a POST checks the form and the limits, writes the record and queues the job,
then answers 303 to the run page. The page streams the run's events as HTML fragments over SSE from Redis, so
any web process can follow any run; with JS off it refreshes itself until the run ends.
"""

from __future__ import annotations

import json
import re
import time

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, send_file, stream_with_context, url_for

from rlx.queue import get_redis
from rlx.auth.shelf import needs_shelf, shelf_key
from rlx.runs import batch as batches, events, judges, read_token, record, rollout_rules
from rlx.runs.access import may_see, visibility_for
from rlx.runs.form import FormError, read_run_form
from rlx.jobs.settle import settle
from rlx.runs.launch import MAX_JOB_SEC, request_stop, start_run
from rlx.runs.limits import LimitReached
from rlx.runs.egress import egress_for
from rlx.runs.models import ModelChoice, ModelError, choose_model, drop_secret, store_secret
from rlx.runs import sandboxes
from rlx.auth.visitor import cap_holder_id, visitor_token
from rlx.runs.record import RunRecord
from rlx.runs.view import masked_event, run_view, task_answer_values, verifier_render
from rlx.http.error_answers import error_response
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.loaders import load_env
from rlx.http.origin import same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.render import render, swapping_in_place
from rlx.web.environments.tasks import render_task_page
from rlx.web.runs.owner import owns, stop_as_owner, visitor_id
from rlx.store import app_store

bp = Blueprint("runs", __name__)
_EVENT_ID = re.compile(r"^\d{1,20}-\d{1,10}\Z")
STREAM_SECONDS = 300  # one SSE connection at most this long; the browser reconnects where it left off
BLOCK_MS = 5000


@bp.post("/t/<org>/<name>/<path:ref>/run")
@same_origin_only
@rate_limited("runs")
def start(org: str, name: str, ref: str):
    try:
        rollout_rules.check_open()
    except rollout_rules.RolloutRefused as exc:
        return error_response(exc.status, str(exc), retry_after=exc.retry_after)
    state = load_env(org, name, start_indexing=False)
    if not state.ready:
        return error_response(503, "This dataset is still being indexed; try again in a moment.", retry_after=5)
    if not any(r.ref == ref for r in state.index.rows):
        abort(404, f"{org}/{name} has no task {ref!r}.")
    token = visitor_token()
    options = rollout_rules.offer(sandboxes.for_visitor(state.adapter.run_options(state.env, state.index, ref),
                                                        token is not None))
    try:
        choice = read_run_form(request.form, options)
        model = model_from_form(choice.values["agent"], choice.values, choice.secret, token)
        judge = choice.values.get(judges.FIELD)
        judge_secret = judges.judge_secret(current_app.config["RLX"], token) if judge else None
    except (FormError, ModelError) as exc:
        return _refused_form(org, name, ref, options, exc)
    try:
        rollout_rules.check_start(choice.values["agent"], choice.option.key)
    except rollout_rules.RolloutRefused as exc:
        return error_response(exc.status, str(exc), retry_after=exc.retry_after)
    run = RunRecord(id=record.new_run_id(), env_id=state.env.id, ref=ref, agent=choice.values["agent"],
                    sandbox=choice.option.key, model=model.model if model else None, revision=state.env.revision,
                    visitor=visitor_id(create=True),
                    visibility=visibility_for(state.env.record, choice.values["visibility"]),
                    private_dataset=needs_shelf(state.env.record, token), cap_holder=cap_holder_id(), judge=judge)
    if judge_secret:  # the visitor's token for the judge on the router: the job takes it from Redis once
        judges.store_judge_secret(get_redis(), run.id, judge_secret)
    if model:
        store_secret(get_redis(), run.id, model.endpoint, model.key)
    if run.sandbox == sandboxes.HF:  # the job takes it from Redis once; the record never holds it
        sandboxes.hand_token(get_redis(), run.id, token, MAX_JOB_SEC)
    if run.private_dataset:  # the job reads the task from this visitor's shelf, with their token, once
        read_token.hand(get_redis(), run.id, token, shelf_key(token), MAX_JOB_SEC)
    try:
        start_run(run, pack_store=state.env.store)
    except LimitReached as exc:
        get_redis().delete(sandboxes.token_key(run.id))
        read_token.forget(get_redis(), run.id)
        drop_secret(get_redis(), run.id)
        judges.drop_judge_secret(get_redis(), run.id)
        return error_response(429, str(exc), retry_after=exc.retry_after)
    if swapping_in_place():  # the htmx form: the browser goes to the run page, not into the form's box
        return Response(status=204, headers={"HX-Redirect": url_for("runs.run_page", run_id=run.id)})
    return redirect(url_for("runs.run_page", run_id=run.id), 303)


def _refused_form(org: str, name: str, ref: str, options, exc: FormError | ModelError):
    """A form mistake is shown beside its field with the visitor's values kept (never the key): htmx swaps the
    one form back in place; with JS off the task page comes back whole, with status 400."""
    option = next((o for o in options if o.key == request.form.get("option") and o.can_run), None)
    values = {k: v[:200] for k, v in request.form.items() if k != "api_key"}
    field = exc.field if option and any(f.name == exc.field for f in option.fields) else None
    form_error = {"option": option.key if option else None, "field": field, "message": str(exc)}
    if option is not None and swapping_in_place():
        html = render_template("partials/run_option.html", o=option, org=org, name=name, ref=ref,
                               form_error=form_error, form_values=values)
        return Response(html, status=200, mimetype="text/html")  # htmx swaps a 2xx only
    return render_task_page(org, name, ref, status=400, form_error=form_error, form_values=values)


def model_from_form(agent: str, values, api_key: str | None, token: str | None) -> ModelChoice | None:
    """The model a run or batch form asks for (rlx/runs/models.py), with this server's router and loopback rule."""
    return choose_model(agent, values.get("model", "").strip(), values.get("endpoint", "").strip(), api_key, token,
                        current_app.config["RLX"].hf_router_url, egress_for(current_app))


def _visible_run(run_id: str) -> RunRecord:
    store = app_store()
    run = record.load(store, run_id)
    if run is None or not may_see(run, visitor_id(), hidden_ids(), dataset_access):
        abort(404, "There is no run with that id (or it is private to whoever started it).")
    return run


@bp.get("/r/<run_id>")
def run_page(run_id: str):
    run = settle(_visible_run(run_id))
    store, redis = app_store(), get_redis()
    live = events.read(redis, run.id, count=events.MAX_EVENTS)
    shown = [e for _id, e in live] if live else events.archived(store, run.id)
    last_id = live[-1][0] if live else "0"
    view = run_view(store, run, shown, owner=owns(run))
    return render("pages/run.html", view=view, run=run, last_id=last_id)


@bp.get("/r/<run_id>/verifier/<name>")
def run_render(run_id: str, name: str):
    """A picture the verifier saved (rlx/runs/view.py verifier_render), under the run page's own visibility."""
    path = verifier_render(app_store(), _visible_run(run_id), name)
    if path is None:
        abort(404, "This run has no such picture to show.")
    response = send_file(path, mimetype="image/png")
    # private: the run may be made private later, and a shared cache must not keep serving it meanwhile
    response.headers["Cache-Control"] = "private, max-age=3600"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@bp.get("/r/<run_id>/events")
def run_events(run_id: str):
    """Server-sent events: `event` fragments to append, `status` fragments that replace the summary, `end`."""
    run = _visible_run(run_id)
    after = request.headers.get("Last-Event-ID") or request.args.get("after") or "0"
    if after != "0" and not _EVENT_ID.match(after):
        abort(400, "`after` must be an event id such as 1712345678901-0.")
    owner = owns(run)
    store, redis = app_store(), get_redis()
    values = task_answer_values(store, run)

    def stream():
        cursor, deadline = after, time.monotonic() + STREAM_SECONDS
        yield "retry: 1000\n\n"
        while time.monotonic() < deadline:
            batch = events.read(redis, run.id, after=cursor, block_ms=BLOCK_MS)
            if not batch:
                current = settle(record.load(store, run.id))
                if not current.active:
                    yield _sse("status", _summary(store, current, owner), None)
                    yield _sse("end", "", None)
                    return
                yield ": still running\n\n"
                continue
            for event_id, event in batch:
                cursor = event_id
                event = masked_event(event, values)
                shown = render_template("partials/run_event.html", e=event).strip()  # the trajectory's line, if any
                if event["kind"] == "status":
                    yield _sse("status", _summary(store, record.load(store, run.id), owner), event_id)
                    if shown:  # the final status: the verifier's reward closes the trajectory too
                        yield _sse("event", shown, None)
                elif event["kind"] == "end":
                    yield _sse("event", shown, None)
                    yield _sse("status", _summary(store, record.load(store, run.id), owner), event_id)
                    yield _sse("end", "", event_id)
                    return
                else:
                    yield _sse("event", shown, event_id)

    response = Response(stream_with_context(stream()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _summary(store, run: RunRecord, owner: bool) -> str:
    return render_template("partials/run_summary.html", view=run_view(store, run, [], owner=owner), run=run)


def _sse(name: str, html: str, event_id: str | None) -> str:
    lines = [f"event: {name}"]
    if event_id:
        lines.append(f"id: {event_id}")
    lines += [f"data: {line}" for line in (html.splitlines() or [""])]
    return "\n".join(lines) + "\n\n"


@bp.post("/r/<run_id>/stop")
@same_origin_only
def stop(run_id: str):
    run = _visible_run(run_id)
    if request.form.get("back") == "mine":  # the Stop of the "Your runs" list goes back to that list
        return stop_as_owner(run, "run", _stop, "rollouts.my_runs")
    return stop_as_owner(run, "run", _stop, "runs.run_page", run_id=run.id)


def _stop(run: RunRecord) -> RunRecord:
    """Stop an active run; one stopped before it started frees its batch's place at once."""
    if not run.active:
        return run
    stopped = request_stop(run)
    if not stopped.active:
        batches.after_run(app_store(), get_redis(), stopped)
    return stopped


@bp.get("/api/runs/<run_id>")
def run_json(run_id: str):
    run = settle(_visible_run(run_id))
    data = run.to_json()
    data.pop("visitor", None)
    data.pop("cap_holder", None)
    data["reward"] = run.reward
    return Response(json.dumps(data), mimetype="application/json")
