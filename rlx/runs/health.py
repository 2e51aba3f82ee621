"""An environment's health: are its tasks sound? The reference solution (oracle) must solve each task, twice
alike, and doing nothing (nop) must not.

A health check is one batch (rlx/runs/batch.py) over the environment's runnable tasks at one revision: per task
oracle, nop, oracle again, on the `bulk` queue (workers take it only when no visitor's rollout waits), at most
`cap` sandboxes at once and at most `budget` tasks (the rest "not checked"). One check per dataset revision: asking
again answers with the check already made. Its verdicts are worked out from the runs index as runs end, and kept
there per revision (`health_verdicts`) when the batch ends, so a copy of the index carries them.

Verdicts: sound (oracle solves, nop fails), oracle fails, nop passes (the verifier accepts doing nothing), flaky
(the two oracle runs differ), cannot run here (why), not checked (over budget, stopped, or not run yet).
"""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass

from rlx.runs import outcome, record
from rlx.runs.index import connect
from rlx.store import Store

SOUND, ORACLE_FAILS, NOP_PASSES, FLAKY, CANNOT_RUN, NOT_CHECKED = (
    "sound", "oracle fails", "nop passes", "flaky", "cannot run here", "not checked")
VERDICTS = (SOUND, ORACLE_FAILS, NOP_PASSES, FLAKY, CANNOT_RUN, NOT_CHECKED)
PLAN = ("oracle", "nop", "oracle")  # per task, in this order: a task's verdict is known after its three runs
HEALTH_QUEUE = "bulk"
DEFAULT_CAP = 4
MAX_CAP = 8
DEFAULT_BUDGET = 300  # tasks one check runs, at most (RLX_HEALTH_BUDGET)
MAX_BUDGET = 5000
SCHEMA = """
CREATE TABLE IF NOT EXISTS health_checks (env_id TEXT NOT NULL, revision TEXT NOT NULL, batch_id TEXT NOT NULL,
    created_at TEXT NOT NULL, skipped TEXT NOT NULL, PRIMARY KEY (env_id, revision)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS health_verdicts (env_id TEXT NOT NULL, revision TEXT NOT NULL, ref TEXT NOT NULL,
    verdict TEXT NOT NULL, why TEXT NOT NULL, PRIMARY KEY (env_id, revision, ref)) WITHOUT ROWID;
"""


@dataclass
class Check:
    env_id: str
    revision: str
    batch_id: str
    created_at: str
    skipped: dict[str, str]  # ref -> why it was not run (cannot run here, over budget)


def _db(store: Store):
    db = connect(store)
    db.executescript(SCHEMA)
    return db


def plan(adapter, env, index) -> tuple[list[str], dict[str, str]]:
    """(the tasks a check runs, {task: why it cannot run here}): a task runs when this machine's sandbox (the
    `local` run option) can run it; otherwise that option's own reason is kept."""
    runnable, cannot = [], {}
    for row in index.rows:
        options = adapter.run_options(env, index, row.ref)
        local = next((o for o in options if o.key == "local"), None)
        if local is not None and local.can_run:
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
        start(current_app.extensions["rlx.store"], get_redis(), env.id, env.revision, runnable, cannot,
              config.health_cap, config.health_budget)


def find(store: Store, env_id: str, revision: str | None) -> Check | None:
    with closing(_db(store)) as db:
        row = db.execute("SELECT * FROM health_checks WHERE env_id=? AND revision=?",
                         (env_id, revision or "")).fetchone()
    return None if row is None else Check(row["env_id"], row["revision"], row["batch_id"], row["created_at"],
                                          json.loads(row["skipped"]))


def start(store: Store, redis, env_id: str, revision: str | None, runnable: list[str], cannot: dict[str, str],
          cap: int = DEFAULT_CAP, budget: int = DEFAULT_BUDGET) -> Check:
    """The check of this revision: the one already made, or a new batch over the runnable tasks."""
    from rlx.runs import batch as batches

    kept = find(store, env_id, revision)
    if kept is not None:
        return kept
    chosen = runnable[:max(0, min(budget, MAX_BUDGET))]
    skipped = {**cannot, **{ref: "Over this check's budget of tasks." for ref in runnable[len(chosen):]}}
    run = batches.BatchRecord(
        id=record.new_run_id(), env_id=env_id, agent="oracle", refs=[ref for ref in chosen for _ in PLAN],
        agents=[agent for _ in chosen for agent in PLAN], cap=max(1, min(cap, MAX_CAP)), revision=revision,
        visitor=None, visibility="public", queue=HEALTH_QUEUE, purpose="health")
    with closing(_db(store)) as db:  # claimed first: two visitors asking at once start one check
        db.execute("BEGIN IMMEDIATE")
        taken = db.execute("INSERT OR IGNORE INTO health_checks VALUES (?, ?, ?, ?, ?)",
                           (env_id, revision or "", run.id, record.now_iso(), json.dumps(skipped))).rowcount
        db.execute("COMMIT")
    if not taken:
        return find(store, env_id, revision)
    if chosen:
        batches.save(store, run)
        batches.advance(store, redis, run.id)
    return find(store, env_id, revision)


def verdicts(store: Store, check: Check) -> list[dict]:
    """Per task: {ref, verdict, why}, from the check's runs as the index has them now."""
    with closing(_db(store)) as db:
        rows = db.execute("SELECT id, ref, agent, status, scored, reward, kind, reason FROM runs "
                          "WHERE batch=? ORDER BY created_at", (check.batch_id,)).fetchall()
    from rlx.runs import batch as batches

    runs: dict[str, list[dict]] = {}
    for row in rows:
        runs.setdefault(row["ref"], []).append(dict(row))
    batch = batches.load(store, check.batch_id)
    planned = dict.fromkeys(batch.refs) if batch is not None else dict.fromkeys(runs)  # tasks not started yet too
    out = [{"ref": ref, **(verdict_of(runs[ref]) if ref in runs else {
        "verdict": NOT_CHECKED, "why": "Not run yet." if batch and batch.status == batches.RUNNING else
        "The check ended before it.", "run_ids": []})} for ref in planned]
    out += [{"ref": ref, "verdict": CANNOT_RUN if not why.startswith("Over") else NOT_CHECKED, "why": why,
             "run_ids": []} for ref, why in check.skipped.items()]
    return sorted(out, key=lambda v: (VERDICTS.index(v["verdict"]), v["ref"]))


def verdict_of(runs: list[dict]) -> dict:
    """The verdict of one task from its oracle and nop runs (index rows)."""
    ids = [r["id"] for r in runs]
    ended = {r["id"]: (r["agent"], _kind(r)) for r in runs}
    oracle = [ended[i][1] for i in ids if ended[i][0] == "oracle"]
    nop = [ended[i][1] for i in ids if ended[i][0] == "nop"]
    kinds = oracle + nop
    if len(oracle) < 2 or not nop or any(k.kind == outcome.PENDING for k in kinds):
        return {"verdict": NOT_CHECKED, "why": "Its runs have not all ended yet.", "run_ids": ids}
    if stopped := next((k for k in kinds if k.kind == outcome.STOPPED), None):
        return {"verdict": NOT_CHECKED, "why": stopped.reason, "run_ids": ids}
    if broke := next((k for k in kinds if k.kind == outcome.INFRASTRUCTURE), None):
        return {"verdict": CANNOT_RUN, "why": broke.reason, "run_ids": ids}
    solved = [k.kind == outcome.SOLVED for k in oracle]
    if solved[0] != solved[1]:
        return {"verdict": FLAKY, "why": "The two oracle runs ended differently: " + " / ".join(
            f"{k.label} ({k.reason})" for k in oracle[:2]), "run_ids": ids}
    if not solved[0]:
        return {"verdict": ORACLE_FAILS, "why": f"The reference solution did not solve it: {oracle[0].reason}",
                "run_ids": ids}
    if nop[0].kind == outcome.SOLVED:
        return {"verdict": NOP_PASSES, "why": f"Doing nothing was accepted: {nop[0].reason}", "run_ids": ids}
    return {"verdict": SOUND, "why": "The oracle solved it twice; doing nothing did not.", "run_ids": ids}


def _kind(row: dict) -> outcome.Outcome:
    if row["kind"] is None:
        return outcome.outcome_of(row["status"], bool(row["scored"]), row["reward"], None, row["reason"])
    return outcome.Outcome(row["kind"], row["reason"] or "")


def shares(found: list[dict]) -> list[dict]:
    """Each verdict's count and share of the tasks, in the vocabulary's order."""
    total = len(found) or 1
    return [{"verdict": v, "n": n, "share": n / total} for v in VERDICTS
            if (n := sum(1 for f in found if f["verdict"] == v))]


def keep_verdicts(store: Store, batch) -> None:
    """The check's batch ended: write its verdicts into the runs index, per revision."""
    check = find(store, batch.env_id, batch.revision)
    if check is None or check.batch_id != batch.id:
        return
    found = verdicts(store, check)
    with closing(_db(store)) as db:
        db.execute("BEGIN")
        db.execute("DELETE FROM health_verdicts WHERE env_id=? AND revision=?", (check.env_id, check.revision))
        db.executemany("INSERT INTO health_verdicts VALUES (?, ?, ?, ?, ?)",
                       [(check.env_id, check.revision, f["ref"], f["verdict"], f["why"][:300]) for f in found])
        db.execute("COMMIT")


def kept(store: Store, env_id: str, revision: str | None) -> dict[str, int]:
    """The kept verdict counts of one revision (empty when no check has ended): for the catalog and the API."""
    with closing(_db(store)) as db:
        rows = db.execute("SELECT verdict, COUNT(*) AS n FROM health_verdicts WHERE env_id=? AND revision=? "
                          "GROUP BY verdict", (env_id, revision or "")).fetchall()
    return {r["verdict"]: r["n"] for r in rows}
