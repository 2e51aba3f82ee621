"""/compare/sets: two sets of rollouts on the same tasks (two batches, or two agents·models on one environment),
compared task by task with a paired test (rlx/runs/paired.py), as a page, a plot, CSV and JSONL.

The address holds the whole comparison, so it can be shared: ?a=batch:<id>&b=batch:<id>, or
?env=<org>/<name>&a=agent:<agent>[:<model>]&b=agent:<agent>[:<model>]. Each rollout shown passes the one
visibility rule (rlx/runs/access.py), so a private batch compares only for its owner. Two sets on one task list
under two names (a MiMo release and its Harbor conversion) are compared on the first set's names: each of the
second set's tasks is read as its alias there, as its adapter names it (rlx/adapters/aliases.py).
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, abort, current_app, request

from rlx.runs import paired, rollouts
from rlx.runs.community import model_label
from rlx.runs.paired_plot import grid
from rlx.runs.record import valid_run_id
from rlx.store import app_store
from rlx.web.environments.dataset_access import dataset_access
from rlx.web.environments.hidden import hidden_ids
from rlx.web.environments.loaders import load_env
from rlx.http.render import render
from rlx.web.runs.owner import visitor_id

bp = Blueprint("compare_sets", __name__)
_ENV = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}$")
_NAME = re.compile(r"^[\w.@/+-]{1,120}$")


def _side(spec: str, env_id: str, name: str) -> tuple[str, list[dict]]:
    """(label, rows) for one side of the comparison, or a 400/404 that says what was wrong."""
    store, me, hidden = app_store(), visitor_id(), hidden_ids()
    kind, _, rest = spec.partition(":")
    if kind == "batch":
        if not valid_run_id(rest):
            abort(400, f"{name}: a batch id is twelve lowercase letters and digits.")
        rows = rollouts.for_batch(store, rest, me, hidden, dataset_access)
        if rows is None:
            abort(404, f"{name}: there is no batch {rest} (or it is private to whoever started it).")
        return f"batch {rest} ({model_label(rows[0]['agent'], rows[0]['model'])})", rows
    if kind == "agent":
        agent, _, model = rest.partition(":")
        if not _NAME.match(agent) or (model and not _NAME.match(model)):
            abort(400, f"{name}: give agent:<agent> or agent:<agent>:<model>.")
        if not _ENV.match(env_id):
            abort(400, "Comparing agents needs the environment: env=<org>/<name>.")
        if env_id in hidden:  # absent, as a repository that does not exist
            abort(404, f"{name}: there is no environment {env_id}.")
        rows = rollouts.for_agent(store, env_id, agent, model or None, me, hidden, dataset_access)
        return model_label(agent, model or None), rows
    abort(400, f"{name} must be batch:<id> or agent:<agent>[:<model>].")


def _compared():
    a, b, env_id = (request.args.get(k, "")[:300] for k in ("a", "b", "env"))
    if not a or not b:
        return None
    label_a, rows_a = _side(a, env_id, "a")
    label_b, rows_b = _side(b, env_id, "b")
    envs_a, envs_b = {r["env_id"] for r in rows_a}, {r["env_id"] for r in rows_b}
    aliased = None
    if len(envs_a | envs_b) > 1:
        rows_b, aliased = _onto(envs_a, envs_b, rows_b)
    view = paired.compare_sets(paired.gather(rows_a), paired.gather(rows_b))
    return {"view": view, "label_a": label_a, "label_b": label_b, "a": a, "b": b, "env": env_id,
            "env_id": next(iter(envs_a or envs_b), env_id), "aliased": aliased}


def _onto(envs_a: set[str], envs_b: set[str], rows_b: list[dict]) -> tuple[list[dict], dict]:
    """B's rows with each task renamed to its alias in A's environment; a 400 unless both sets are each on one
    environment and at least one of B's tasks is an alias of one there. B's tasks without an alias there stay,
    named with their environment, among the tasks only one set ran."""
    if len(envs_a) != 1 or len(envs_b) != 1:
        abort(400, "Both sets must be rollouts of one environment's tasks; these cover "
                   + ", ".join(sorted(envs_a | envs_b)[:4]) + ".")
    (home,), (other,) = envs_a, envs_b
    found = _aliases_in(other, sorted({r["ref"] for r in rows_b}), home)
    if not found:
        abort(400, f"Both sets must be rollouts of the same environment's tasks: A is on {home}, B on {other}, "
                   f"and none of B's tasks is the same task as one of {home}'s.")
    renamed = [{**r, "ref": found.get(r["ref"], f"{other} · {r['ref']}")} for r in rows_b]
    return renamed, {"env": other, "tasks": len(found)}


def _aliases_in(env_id: str, refs: list[str], home: str) -> dict[str, str]:
    """{ref in env_id: the same task's ref in home}, as env_id's adapter names its tasks' aliases."""
    org, _, name = env_id.partition("/")
    state = load_env(org, name, start_indexing=False)
    if not state.ready:
        return {}
    found = {}
    for ref in refs:
        there = [alias_ref for alias_env, alias_ref in state.adapter.aliases(state.env, state.index, ref)
                 if alias_env == home]
        if there:
            found[ref] = there[0]
    return found


@bp.get("/compare/sets")
def compare_sets():
    compared = _compared()
    if compared is None:  # the form, with what the address already chose (a batch page's link brings `a`)
        return render("pages/compare_sets.html", compared=None,
                      chosen={k: request.args.get(k, "")[:300] for k in ("a", "b", "env")})
    plot = grid(compared["view"], compared["label_a"], compared["label_b"])
    response = render("pages/compare_sets.html", compared=compared, plot=plot,
                      args={k: compared[k] for k in ("a", "b", "env") if compared[k]})
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/compare/sets.<fmt>")
def compare_sets_export(fmt: str):
    if fmt not in ("csv", "jsonl", "json"):
        abort(404, "Exports are .csv, .jsonl and .json.")
    compared = _compared()
    if compared is None:
        abort(400, "Give the two sets as a=… and b=… (batch:<id>, or agent:<agent>[:<model>] with env=).")
    view = compared["view"]
    if fmt == "json":
        body = {k: v for k, v in view.items() if k != "tasks"}
        body.update(tasks=paired.export_rows(view), a=compared["label_a"], b=compared["label_b"])
        response = current_app.json.response(body)
    else:
        text, mime = (paired.to_csv(view), "text/csv") if fmt == "csv" else (paired.to_jsonl(view),
                                                                              "application/x-ndjson")
        response = Response(text, mimetype=mime)
        response.headers["Content-Disposition"] = f"attachment; filename=compare.{fmt}"
    response.headers["Cache-Control"] = "private, no-store"
    return response
