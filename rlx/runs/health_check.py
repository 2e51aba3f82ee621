"""Starting an environment's health check: per runnable task oracle, nop, oracle again, as one batch on the `bulk`
queue (workers take it only when no visitor's rollout waits), at most `cap` sandboxes at once and at most `budget`
tasks (the rest "not checked"). One check per dataset revision: asking again answers with the check already made
(rlx/runs/health.py records it and works out its verdicts).
"""

from __future__ import annotations

import json
from contextlib import closing

from rlx.jobs.queues import BULK
from rlx.runs import batch as batches, record
from rlx.runs.health import Check, find, health_db, worth_again
from rlx.runs.judges import FIELD as JUDGE_FIELD
from rlx.store import Store, app_store

PLAN = ("oracle", "nop", "oracle")  # per task, in this order: a task's verdict is known after its three runs
HEALTH_QUEUE = BULK
DEFAULT_CAP = 4
MAX_CAP = 8
DEFAULT_BUDGET = 300  # tasks one check runs, at most (RLX_HEALTH_BUDGET)
MAX_BUDGET = 5000
# A health check runs unattended, for everyone: it has nobody's token to pay a judge with, and the operator's
# judge (RLX_JUDGE_ENDPOINT) is for visitors' runs.
JUDGED = "It is graded by a judge model, which a health check does not call; run it from its page with a judge."


def plan(adapter, env, index) -> tuple[list[str], dict[str, str]]:
    """(the tasks a check runs, {task: why it cannot run here}): a task runs when this machine's sandbox (the
    `local` run option) can run it; otherwise that option's own reason is kept."""
    runnable, cannot = [], {}
    for row in index.rows:
        options = adapter.run_options(env, index, row.ref)
        local = next((o for o in options if o.key == "local"), None)
        if local is not None and local.can_run and any(f.name == JUDGE_FIELD for f in local.fields):
            cannot[row.ref] = JUDGED
        elif local is not None and local.can_run:
            runnable.append(row.ref)
        else:
            cannot[row.ref] = (local.why_not if local is not None and local.why_not else
                               f"Its tasks cannot run here: {adapter.cannot_run_why}")
    return runnable, cannot


def after_index(env, adapter, index) -> None:
    """A revision was just indexed: with RLX_HEALTH_CHECKS=auto, its check starts (once; a no-op otherwise)."""
    from flask import current_app

    from rlx.queue import get_redis

    config = current_app.config["RLX"]
    if not config.health_auto or not index.complete:
        return
    runnable, cannot = plan(adapter, env, index)
    if runnable:
        start(app_store(), get_redis(), env.id, env.revision, runnable, cannot,
              config.health_cap, config.health_budget)


def start(store: Store, redis, env_id: str, revision: str | None, runnable: list[str], cannot: dict[str, str],
          cap: int = DEFAULT_CAP, budget: int = DEFAULT_BUDGET, again: bool = False) -> Check:
    """The check of this revision: the one already made, or a new batch over the runnable tasks. With `again`, an
    ended check that left tasks unchecked or broken (health.worth_again) is replaced by a new one."""
    kept = find(store, env_id, revision)
    if kept is not None and not (again and worth_again(store, kept)):
        return kept
    chosen = runnable[:max(0, min(budget, MAX_BUDGET))]
    skipped = {**cannot, **{ref: "Over this check's budget of tasks." for ref in runnable[len(chosen):]}}
    run = batches.BatchRecord(
        id=record.new_run_id(), env_id=env_id, agent="oracle", refs=[ref for ref in chosen for _ in PLAN],
        agents=[agent for _ in chosen for agent in PLAN], cap=max(1, min(cap, MAX_CAP)), revision=revision,
        visitor=None, visibility="public", queue=HEALTH_QUEUE, purpose="health")
    with closing(health_db(store)) as db:  # claimed first: two visitors asking at once start one check
        db.execute("BEGIN IMMEDIATE")
        if kept is not None:  # only the check judged worth replacing: one another visitor started since stays
            db.execute("DELETE FROM health_checks WHERE env_id=? AND revision=? AND batch_id=?",
                       (env_id, revision or "", kept.batch_id))
        taken = db.execute("INSERT OR IGNORE INTO health_checks VALUES (?, ?, ?, ?, ?)",
                           (env_id, revision or "", run.id, record.now_iso(), json.dumps(skipped))).rowcount
        db.execute("COMMIT")
    if not taken:
        return find(store, env_id, revision)
    if chosen:
        batches.save(store, run)
        batches.advance(store, redis, run.id)
    return find(store, env_id, revision)
