"""Batch evaluations on the web: the batch form's POST on an environment page, the batch page /b/<id> with its
progress partial (polled by htmx; the page refreshes itself with JS off), and the exports.

The web process only writes the batch record and starts its first runs (rlx/runs/batch.py); the runs' own jobs
start the rest as they end.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, redirect, request, url_for
from werkzeug.datastructures import MultiDict

from rlx.queue import get_redis
from rlx.runs import batch as batches
from rlx.runs import agents as agent_registry
from rlx.runs import judges, record, rollout_rules
from rlx.auth.shelf import needs_shelf, shelf_key
from rlx.runs import read_token
from rlx.runs.access import may_see, visibility_for
from rlx.runs.batch import BatchRecord
from rlx.runs.batch_results import (counts, histogram, result_rows, results, solved_cost, to_csv, to_jsonl, to_parquet,
                                    withdrawn_count)
from rlx.jobs.settle import settle
from rlx.runs.limits import LimitReached
from rlx.runs.models import ModelChoice, ModelError
from rlx.auth.visitor import cap_holder_id, visitor_token
from rlx.http.error_answers import error_response
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.loaders import load_env
from rlx.http.origin import same_origin_only
from rlx.http.render import render
from rlx.web.runs.batch_judges import judged_refs
from rlx.web.runs.pages import model_from_form
from rlx.adapters.task_search import TaskQuery, search_index
from rlx.web.runs.owner import owns, stop_as_owner, visitor_id
from rlx.store import app_store

bp = Blueprint("batches", __name__)
AGENTS = agent_registry.NAMES  # which of them this host runs: rollout_rules.check_start
VISIBILITIES = ("private", "public")
FIELDS = {"agent", "visibility", "cap", "q", "f", "model", "endpoint", "api_key", judges.FIELD}
MAX_TEXT, MAX_SECRET = 200, 400
EXPORTS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson", "parquet": "application/vnd.apache.parquet"}


class BatchFormError(ValueError):
    pass


def read_batch_form(form) -> tuple[str, str, int, TaskQuery, ModelChoice | None, str | None]:
    """The form's agent, visibility, cap, task filters, model, and judge (None: the pool's first, if one is needed)."""
    unknown = sorted(set(form.keys()) - FIELDS)
    if unknown:
        raise BatchFormError(f"The form has a field a batch does not take: {unknown[0][:40]!r}.")
    for name in ("agent", "visibility", "cap", "q", "model", "endpoint", "api_key", judges.FIELD):
        if len(form.getlist(name)) > 1:
            raise BatchFormError(f"The field {name!r} was sent more than once.")
    agent = form.get("agent", "")
    if agent not in AGENTS:
        raise BatchFormError(f"A batch runs one of {', '.join(AGENTS)}, not {agent[:40]!r}.")
    if why := dict(map(tuple, rollout_rules.unavailable_agents())).get(agent):
        raise BatchFormError(f"{agent} cannot run here: {why}")
    visibility = form.get("visibility", "private")
    if visibility not in VISIBILITIES:
        raise BatchFormError(f"Visibility must be private or public, not {visibility[:40]!r}.")
    raw_cap = form.get("cap", "2").strip()
    if not raw_cap.isdigit() or not 1 <= int(raw_cap) <= batches.MAX_CAP:
        raise BatchFormError(f"Runs at once must be a whole number from 1 to {batches.MAX_CAP}, not {raw_cap[:20]!r}.")
    if len(form.get("q", "")) > 200 or len(form.getlist("f")) > 24 or any(len(v) > 240 for v in form.getlist("f")):
        raise BatchFormError("The task filters are too long (at most 200 characters of words and 24 filters).")
    if len(form.get("model", "")) > MAX_TEXT or len(form.get("endpoint", "")) > MAX_TEXT:
        raise BatchFormError(f"The model and endpoint fields take at most {MAX_TEXT} characters.")
    if len(form.get("api_key", "")) > MAX_SECRET:
        raise BatchFormError(f"The API key is longer than {MAX_SECRET} characters.")
    try:
        model = model_from_form(agent, form, form.get("api_key", "").strip() or None, visitor_token())
    except ModelError as exc:
        raise BatchFormError(str(exc)) from None
    judge = form.get(judges.FIELD, "").strip() or None
    if judge is not None and judge not in judges.pool():
        raise BatchFormError(f"The judge model must be one of {', '.join(judges.pool())}, not {judge[:100]!r}.")
    query = TaskQuery.from_args(MultiDict([("q", form.get("q", "")), *[("f", v) for v in form.getlist("f")]]))
    return agent, visibility, int(raw_cap), query, model, judge


def why_no_batch(state, rows) -> str | None:
    """Why a batch of the tasks these filters match would not run here; None when some of them can."""
    if not rows or not state.ready:
        return None
    if off := rollout_rules.switched_off():
        return off
    if not state.adapter.run_options(state.env, state.index, rows[0].ref):
        return f"Its tasks cannot run here: {state.adapter.cannot_run_why}"
    if all(row.facets.get("runs_here") == "no" for row in rows):  # Harbor says, per task, whether one runs here
        return "None of these tasks can run in this machine's sandbox; each task's page says why."
    return None


@bp.post("/d/<org>/<name>/batch")
@same_origin_only
def start(org: str, name: str):
    try:
        rollout_rules.check_open()
        agent, visibility, cap, query, model, judge = read_batch_form(request.form)
    except BatchFormError as exc:
        abort(400, str(exc))
    except rollout_rules.RolloutRefused as exc:
        return error_response(exc.status, str(exc), retry_after=exc.retry_after)
    state = load_env(org, name, start_indexing=False)
    if not state.ready:
        return error_response(503, "This dataset is still being indexed; try again in a moment.", retry_after=5)
    rows, _ = search_index(state.index, query)
    refs = [row.ref for row in rows]
    if not refs:
        abort(400, "No task matches these filters: a batch needs at least one.")
    if refusal := why_no_batch(state, rows):
        abort(400, refusal)
    if len(refs) > batches.MAX_TASKS:
        abort(400, f"These filters match {len(refs)} tasks; a batch covers at most {batches.MAX_TASKS}. "
                   "Narrow them and start again.")
    judged = judged_refs(state, refs)
    judge = (judge or judges.pool()[0]) if judged else None  # as the run form's picker preselects the first
    try:
        judge_secret = judges.judge_secret(current_app.config["RLX"], visitor_token()) if judge else None
    except ModelError as exc:
        abort(400, str(exc))
    try:
        rollout_rules.check_start(agent)  # a batch counts once against the hourly limit
    except rollout_rules.RolloutRefused as exc:
        return error_response(exc.status, str(exc), retry_after=exc.retry_after)
    batch = BatchRecord(id=record.new_run_id(), env_id=state.env.id, agent=agent, refs=refs, cap=cap,
                        model=model.model if model else None, revision=state.env.revision,
                        visitor=visitor_id(create=True), cap_holder=cap_holder_id(), visibility=visibility_for(state.env.record, visibility),
                        private_dataset=needs_shelf(state.env.record, visitor_token()),
                        filters={"q": query.q, "f": query.args().get("f", [])}, judge=judge, judged=judged)
    max_active = int(current_app.config.get("RLX_MAX_BATCHES_PER_VISITOR", batches.MAX_ACTIVE_PER_VISITOR))
    if batch.private_dataset:  # its runs read the task from this visitor's shelf, with their token
        read_token.hand_batch(get_redis(), batch.id, visitor_token(), shelf_key(visitor_token()),
                              batches.BATCH_SLOT_SEC)
    try:
        batches.create(app_store(), get_redis(), batch, max_active,
                       model.secret() if model else None, judge_secret)
    except LimitReached as exc:
        read_token.forget_batch(get_redis(), batch.id)
        return error_response(429, str(exc), retry_after=exc.retry_after)
    return redirect(url_for("batches.batch_page", batch_id=batch.id), 303)


@bp.post("/b/<batch_id>/stop")
@same_origin_only
def stop(batch_id: str):
    batch = _visible_batch(batch_id)
    return stop_as_owner(batch, "batch", lambda b: batches.stop(app_store(), get_redis(), b.id),
                         "batches.batch_page", batch_id=batch.id)


def _visible_batch(batch_id: str) -> BatchRecord:
    batch = batches.load(app_store(), batch_id)
    if batch is None or not may_see(batch, visitor_id(), hidden_ids(), dataset_access):
        abort(404, "There is no batch with that id (or it is private to whoever started it).")
    return batch


def _context(batch_id: str) -> dict:
    store = app_store()
    batch = _visible_batch(batch_id)  # read only: the workers start its next runs (rlx/runs/batch.py)
    runs = [settle(run) if run is not None else None for run in batches.runs_of(store, batch)]
    owner = owns(batch)
    rows = result_rows(batch, runs, hide_withdrawn=not owner)
    return {"batch": batch, "rows": rows, "counts": counts(rows), "hist": histogram(rows), "results": results(rows),
            "per_solved": solved_cost(rows),
            "withdrawn": 0 if owner else withdrawn_count(runs),
            "active": batch.status == batches.RUNNING or any(run is not None and run.active for run in runs),
            "can_stop": owner and batch.status == batches.RUNNING}


@bp.get("/b/<batch_id>")
def batch_page(batch_id: str):
    return render("pages/batch.html", **_context(batch_id))


@bp.get("/b/<batch_id>/progress")
def batch_progress(batch_id: str):
    return render("partials/batch_progress.html", **_context(batch_id))


@bp.get("/b/<batch_id>/results.<fmt>")
def batch_export(batch_id: str, fmt: str):
    if fmt not in EXPORTS:
        abort(404, "Results export as csv, jsonl or parquet.")
    rows = _context(batch_id)["rows"]
    body = {"csv": to_csv, "jsonl": to_jsonl, "parquet": to_parquet}[fmt](rows)
    response = Response(body, mimetype=EXPORTS[fmt].split(";")[0], content_type=EXPORTS[fmt])
    response.headers["Content-Disposition"] = f'attachment; filename="batch-{batch_id}.{fmt}"'
    response.headers["Cache-Control"] = "no-store"
    return response
