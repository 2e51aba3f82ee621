"""Community pages and Compare.

/community                  environments with public, finished, scored rollouts, and the latest of them
/community/<org>/<name>     one environment: a leaderboard per agent and model, a heatmap (tasks × models) drawn
                            as SVG on the server, and the tasks nobody has a community rollout of yet
/compare?runs=a,b           up to four rollouts of one task (or its aliases) side by side, step by step, and the
                            other ended runs of that task a visitor may add (a run page's "Compare with…")

Community answers come from the index of runs only and never say who ran what.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import Blueprint, render_template, request
from markupsafe import Markup

from rlx.queue import get_redis
from rlx.runs import community, record, runs_db
from rlx.runs.access import may_see
from rlx.runs.compare import MAX_RUNS, CompareError, check_same_task, compare_view, parse_ids, steps_of
from rlx.runs.view import verifier_output
from rlx.snapshot.queries import listed_ids
from rlx.snapshot.app_catalog import catalog
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.loaders import load_env
from rlx.http.render import render
from rlx.web.runs.owner import visitor_id
from rlx.store import app_store

bp = Blueprint("community", __name__)
MAX_UNTRIED = 200
MAX_CANDIDATES = 30  # runs offered to add to a comparison
MAX_ALIAS_TASKS = 10  # a task's own name and at most this many aliases are searched for them
HEATMAPS_KEPT = 64  # environments whose drawn heatmap this process keeps
_heatmaps: OrderedDict[tuple[str, str], tuple[int, Markup]] = OrderedDict()
_heatmaps_lock = threading.Lock()


@bp.get("/community")
def community_home():
    store = app_store()
    envs, recent = community.environments(store), community.recent(store)
    shown = _publicly_listed({e["env_id"] for e in envs} | {r["env_id"] for r in recent})
    return render("pages/community.html", envs=[e for e in envs if e["env_id"] in shown],
                  recent=[r for r in recent if r["env_id"] in shown])


def _publicly_listed(env_ids: set[str]) -> set[str]:
    """The environments the public catalog lists, less the hidden ones: a dataset made private after its runs were
    public, or hidden by the admin, is absent here as it is from search (its own pages check each run)."""
    with catalog() as db:
        listed = listed_ids(db, sorted(env_ids))
    return listed - set(hidden_ids())


@bp.get("/community/<org>/<name>")
def community_env(org: str, name: str):
    state = load_env(org, name, start_indexing=False)
    store, env_id = app_store(), state.env.id
    untried = None
    if state.ready:
        tried = community.tried_refs(store, env_id)
        untried = [row.ref for row in state.index.rows if row.ref not in tried]
    return render("pages/community_env.html", env_id=env_id, org=org, name=name,
                  board=community.leaderboard(store, env_id), heatmap_html=_heatmap_html(store, env_id),
                  outcomes=community.outcomes(store, env_id), groups=_groups(state, store, env_id),
                  recent=community.recent(store, env_id), untried=(untried or [])[:MAX_UNTRIED],
                  untried_total=None if untried is None else len(untried))


GROUP_FACETS = (("domain", "Domain"), ("category", "Category"))  # MiMo's domains, a Harbor dataset's categories


def _groups(state, store, env_id: str) -> dict | None:
    """The leaderboard by domain or category, where the environment's tasks have one."""
    if not state.ready:
        return None
    for key, label in GROUP_FACETS:
        group_of = {row.ref: row.facets[key] for row in state.index.rows if row.facets.get(key)}
        if group_of:
            return {"label": label, "rows": community.by_group(store, env_id, group_of)}
    return None


def _heatmap_html(store, env_id: str) -> Markup:
    """The heatmap's SVG section. Querying and drawing up to 720 cells is most of the page's time, so each process
    keeps the last drawing per environment, good while the index's version for it has not grown: every process
    sees the same version in the shared index, so none serves a drawing older than the rows."""
    key = (str(runs_db.index_path(store)), env_id)
    version = community.version(store, env_id)  # read before the rows: a drawing is never older than its version
    with _heatmaps_lock:
        kept = _heatmaps.get(key)
        if kept is not None and kept[0] == version:
            _heatmaps.move_to_end(key)
            return kept[1]
    html = Markup(render_template("partials/community_heatmap.html", heat=community.heatmap(store, env_id)))
    with _heatmaps_lock:
        _heatmaps[key] = (version, html)
        _heatmaps.move_to_end(key)
        while len(_heatmaps) > HEATMAPS_KEPT:
            _heatmaps.popitem(last=False)
    return html


@bp.get("/compare")
def compare():
    given = request.args.getlist("runs")
    if not any(value.strip(" ,") for value in given):  # /compare itself: what it does and where runs are
        return _compare_help()
    try:
        ids = parse_ids(given)
    except CompareError as exc:
        return _compare_help(400, str(exc))
    store, me = app_store(), visitor_id()
    runs = []
    for run_id in ids:
        run = record.load(store, run_id)
        if run is None or not may_see(run, me, hidden_ids(), dataset_access):
            return _compare_help(404, f"There is no run {run_id} (or it is private to whoever started it).")
        runs.append(run)
    aliases = _aliases(runs[0])
    try:
        check_same_task(runs, aliases)
    except CompareError as exc:
        return _compare_help(400, str(exc))
    view = compare_view(runs, [steps_of(store, get_redis(), r) for r in runs],
                        [verifier_output(store, r) for r in runs])
    others = [] if len(runs) >= MAX_RUNS else _other_finished_runs(store, runs, aliases, me)
    return render("pages/compare.html", view=view, first=runs[0], chosen=[r.id for r in runs], others=others,
                  room=MAX_RUNS - len(runs))


def _compare_help(status: int = 200, problem: str | None = None):
    """Compare's own page: what it does and how to pick runs, with what was wrong in the address when it was."""
    response = render("pages/compare_help.html", status=status, problem=problem, max_runs=MAX_RUNS)
    response.headers["Cache-Control"] = "no-store"
    return response


def _aliases(first) -> list[tuple[str, str]]:
    """The first run's task's aliases (the same task under other names), as its adapter names them."""
    org, name = first.env_id.split("/", 1)
    state = load_env(org, name, start_indexing=False)
    return list(state.adapter.aliases(state.env, state.index, first.ref)) if state.ready else []


def _other_finished_runs(store, runs, aliases, me) -> list[dict]:
    """Ended runs of the same task or its aliases this visitor may see, not already chosen: what to add."""
    chosen = {r.id for r in runs}
    found = []
    for env_id, ref in [(runs[0].env_id, runs[0].ref), *aliases][:MAX_ALIAS_TASKS]:
        found += [r for r in runs_db.for_task(store, env_id, ref, visitor=me, limit=MAX_CANDIDATES)
                  if r["id"] not in chosen and r["status"] not in ("queued", "running")]
    found.sort(key=lambda r: r["created_at"], reverse=True)
    return [{**r, "label": community.model_label(r["agent"], r["model"])} for r in found[:MAX_CANDIDATES]]
