"""The environment page /d/<org>/<name>: its overview and its task list, or the indexing job's progress."""

from __future__ import annotations

import time

from flask import Blueprint, abort, redirect, request, url_for
from flask_htmx import make_response as htmx_response

from rlx.adapters import public
from rlx.adapters.manifest import manifest_sections
from rlx.jobs.index import ensure_index_job
from rlx.runs import rollouts
from rlx.queue.outage import retry_sentence
from rlx.runs.access import offered_visibilities
from rlx.store import app_store
from rlx.runs import judges
from rlx.web.runs.batch_judges import offers_judge
from rlx.web.runs.batches import why_no_batch
from rlx.web.environments.health import health_view
from rlx.http.links import query_link
from rlx.web.environments.loaders import load_env
from rlx.http.origin import same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.render import render, wants_fragment
from rlx.adapters.task_search import TaskQuery, page_of, search_index
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.task_rows import row_views
from rlx.web.environments.shared_regions import region, shared_key
from rlx.runs import rollout_rules
from rlx.runs.rollout_rules import offered_agents, unavailable_agents
from rlx.web.runs.owner import visitor_id

bp = Blueprint("envs", __name__)


@bp.get("/d/<org>/<name>")
def env_page(org: str, name: str):
    state = load_env(org, name)
    query = TaskQuery.from_args(request.args)
    env_link = query_link("envs.env_page", org=org, name=name)  # one url_for for every facet value's link
    context = {"state": state, "org": org, "name": name, "query": query}
    if state.index is not None:
        context["tasks_html"] = _tasks_region(state, query, org, name, env_link)
    if not wants_fragment("tasks"):  # the task list's own fragment draws no rollouts
        if state.ready:
            context.update(overview_html=_overview_region(state, query, org, name, env_link),
                           rollout_files=state.adapter.rollout_files(state.index),
                           jump_splits=_jump_splits(state))
        context["health"] = health_view(state) if state.ready else None
        # no health check to offer where no task of this format can run here (a table of prompts, say)
        context["health_offered"] = bool(state.ready and state.index.rows and state.adapter.run_options(
            state.env, state.index, state.index.rows[0].ref))
        context["env_rollouts"] = rollouts.for_env(app_store(), state.env.id, visitor_id(),
                                                   hidden_ids(), ENV_ROLLOUTS, dataset_access)
    response = render("pages/env.html", fragment="tasks", **context)
    if not state.ready or state.stale:
        response.headers["Cache-Control"] = "no-store"
    elif rollouts.lists_own_runs(context.get("env_rollouts") or []):
        response.headers["Cache-Control"] = "private, no-store"  # this visitor's runs: never a shared cache's
    return response


def _query_key(query: TaskQuery, org: str, name: str) -> tuple:
    return (org, name, query.q, query.page, tuple(sorted((k, tuple(sorted(v))) for k, v in query.selected.items())))


def _tasks_region(state, query: TaskQuery, org: str, name: str, env_link):
    """The task list with its facets, pager and batch form (shared_regions: kept per index version and query)."""
    agents, greyed = offered_agents(), unavailable_agents()
    pool = judges.pool()
    key = shared_key(state, "tasks", *_query_key(query, org, name), rollout_rules.switched_off(), tuple(agents),
                     tuple(map(tuple, greyed)), tuple(pool))

    def context() -> dict:
        rows, counted = search_index(state.index, query)
        shown, page, pages = page_of(rows, query.page)
        facets = [{"label": label, "open": i < 4 or key in query.selected,
                   "values": [{"value": v, "n": n, "on": on, "href": env_link(query.toggled(key, v))}
                              for v, n, on in values]}
                  for i, (key, label, values) in enumerate(counted)]
        ready = state.ready
        return {"state": state, "org": org, "name": name, "query": query, "rows": row_views(shown, org, name),
                "total": len(rows), "facets": facets, "page": page, "pages": pages,
                "why_no_batch": why_no_batch(state, rows), "batch_agents": agents, "greyed_agents": greyed,
                "batch_judges": pool if ready and offers_judge(state) else [],
                "batch_visibilities": offered_visibilities(state.env.record, ["private", "public"]),
                "search_parts": state.adapter.search_parts(state.index) if ready else []}

    return region(key, state.index, "partials/env_tasks.html", context)


def _overview_region(state, query: TaskQuery, org: str, name: str, env_link):
    """The overview's sections; their stats link to the task list filtered by a value, from this query."""
    key = shared_key(state, "overview", *_query_key(query, org, name))
    return region(key, state.index, "partials/env_overview.html", lambda: {
        "overview": _overview(state),
        "facet_url": lambda facet, value: env_link(query.toggled(facet, value)) + "#tasks"})


ENV_ROLLOUTS = 10  # the newest; the leaderboard and "Your runs" hold the rest
_overviews: dict[tuple, list] = {}


def _overview(state):
    """The adapter's overview, made once per index version (it counts every task)."""
    index = state.index
    key = (state.adapter.key, index.env_id, index.revision, index.built_at)
    if key not in _overviews:
        if len(_overviews) >= 256:
            _overviews.pop(next(iter(_overviews)))
        _overviews[key] = manifest_sections(index.summary.get("manifest")) + state.adapter.overview(state.env, index)
    return _overviews[key]


def _jump_splits(state) -> list[tuple[str, str]]:
    """(ref prefix, label) for each split of a rows dataset: any row opens by its number, listed or not."""
    if not state.ready:
        return []
    several = state.index.summary.get("several_configs")
    out = []
    for split in (state.index.summary.get("splits") or [])[:100]:
        prefix = f"{split['config']}/{split['split']}" if several else split["split"]
        out.append((prefix, f"{prefix} (0 to {max(0, split['rows'] - 1):,})"))
    return out


SEARCH_PAGE = 20


@bp.get("/d/<org>/<name>/search")
def part_search(org: str, name: str):
    """Every task of one part (a rows split) matching the words, found by the source's own search (the dataset
    viewer), for datasets larger than the list the page holds. A failing viewer is a 503 with Retry-After."""
    state = load_env(org, name)
    part, q = request.args.get("part", "")[:300], " ".join(request.args.get("q", "").split())[:200]
    page = request.args.get("page", "1")
    if not page.isdigit() or not 1 <= int(page) <= 1000:
        abort(400, "A page is a whole number from 1 to 1,000.")
    if not state.ready or part not in dict(state.adapter.search_parts(state.index)):
        abort(404, f"{org}/{name} has no searchable part {part!r}.")
    if not q:
        return redirect(url_for("envs.env_page", org=org, name=name), code=303)
    page = int(page)
    rows, total = state.adapter.search_part(state.env, state.index, part, q, (page - 1) * SEARCH_PAGE, SEARCH_PAGE)
    pages = max(1, -(-min(total, 1000 * SEARCH_PAGE) // SEARCH_PAGE))
    return render("pages/part_search.html", state=state, org=org, name=name, part=part, q=q,
                  rows=row_views(rows, org, name),
                  total=total, page=page, pages=pages)


@bp.get("/d/<org>/<name>/row")
def row_jump(org: str, name: str):
    """A row by its number (the task list shows the first rows of each split; this opens any of them)."""
    state = load_env(org, name)
    prefix = request.args.get("split", "")[:300]
    number = request.args.get("i", "")
    if not number.isdigit() or len(number) > 12:
        abort(400, "A row number is a whole number, 0 or more.")
    ref = f"{prefix}/{int(number)}"
    if not state.ready or not state.adapter.has_task(state.env, state.index, ref):
        abort(404, f"{org}/{name} has no row {number} in {prefix!r}.")
    return redirect(url_for("tasks.task_page", org=org, name=name, ref=ref), code=303)


@bp.get("/d/<org>/<name>/progress")
def env_progress(org: str, name: str):
    """The indexing timeline alone, polled by htmx; once the index is complete the page reloads itself."""
    state = load_env(org, name)
    if state.ready or (state.index is not None and request.args.get("had_rows") != "1"):
        return htmx_response("", 200, refresh=True)
    response = render("partials/progress.html", state=state, org=org, name=name)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/d/<org>/<name>/reindex")
@same_origin_only
@rate_limited("writes")
def env_retry(org: str, name: str):
    """Try a failed indexing again (the page's button)."""
    state = load_env(org, name, start_indexing=False)
    if not state.ready:
        ensure_index_job(state.env.id, state.env.revision, retry=True)
    return redirect(url_for("envs.env_page", org=org, name=name), code=303)


@bp.get("/api/env/<org>/<name>")
def env_json(org: str, name: str):
    state = load_env(org, name)
    body = {"id": state.env.id, "adapter": state.adapter.key, "revision": state.env.revision,
            "state": "ready" if state.ready else ("failed" if state.failure else "indexing"),
            "progress": state.progress, **({"notice": state.notice} if state.notice else {})}
    if state.stale:
        body["stale"] = state.stale
    if state.index is not None:
        body["tasks"] = len(state.index.rows)
        body["overview"] = public(_overview(state)) if state.ready else []
    if state.outage and not state.ready:  # upstream trouble: 503, the sentence, and when it is tried again
        sentence = f"The Hub is failing: {state.outage['message']} {retry_sentence(state.outage['retry_at'])}"
        body.update(ok=False, status=503, error=sentence)
        wait = max(1, round(state.outage["retry_at"] - time.time()))
        return body, 503, {"Retry-After": str(wait), "Cache-Control": "no-store"}
    return body
