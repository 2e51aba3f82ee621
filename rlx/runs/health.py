"""An environment's health: are its tasks sound? The reference solution (oracle) must solve each task, twice
alike, and doing nothing (nop) must not.

A health check (started by rlx/runs/health_check.py) is one batch over the environment's runnable tasks at one
revision, recorded here (`health_checks`) so each revision has one. Its verdicts are worked out from the runs index
as runs end, and kept there per revision (`health_verdicts`) when the batch ends, so a copy of the index carries
them. This module reads batch records only (rlx/runs/batch_record.py): the batch calls it when it ends.

Verdicts: sound (oracle solves, nop fails), oracle fails, nop passes (the verifier accepts doing nothing), flaky
(the two oracle runs differ), cannot run here (why), not checked (over budget, stopped, or not run yet).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass

from rlx.runs import batch_record as batches, outcome
from rlx.runs.runs_db import connect, index_path, reading
from rlx.store import Store

SOUND, ORACLE_FAILS, NOP_PASSES, FLAKY, CANNOT_RUN, NOT_CHECKED = (
    "sound", "oracle fails", "nop passes", "flaky", "cannot run here", "not checked")
VERDICTS = (SOUND, ORACLE_FAILS, NOP_PASSES, FLAKY, CANNOT_RUN, NOT_CHECKED)
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


_made: set[tuple[int, int, int]] = set()  # the runs index files (as stat sees them) this process made the tables in


def health_db(store: Store):
    """The runs index with the health tables made, for writing; the caller closes it."""
    return _with_tables(connect(store), store)


@contextmanager
def health_reading(store: Store) -> Iterator[sqlite3.Connection]:
    """The same, from the connections kept open for reading (runs_db.reading)."""
    with reading(store) as db:
        yield _with_tables(db, store)


def _with_tables(db: sqlite3.Connection, store: Store) -> sqlite3.Connection:
    """The health tables made: once per file in a process (the environment page asks on every view, and the script
    was a tenth of its time). A file made anew, or changed on disk since, has another inode or ctime and gets the
    script again."""
    info = os.stat(index_path(store))
    seen = (info.st_dev, info.st_ino, info.st_ctime_ns)
    if seen not in _made:
        db.executescript(SCHEMA)
        if len(_made) >= 1000:
            _made.clear()
        _made.add(seen)
    return db


def find(store: Store, env_id: str, revision: str | None) -> Check | None:
    with health_reading(store) as db:
        row = db.execute("SELECT * FROM health_checks WHERE env_id=? AND revision=?",
                         (env_id, revision or "")).fetchone()
    return None if row is None else Check(row["env_id"], row["revision"], row["batch_id"], row["created_at"],
                                          json.loads(row["skipped"]))


def verdicts(store: Store, check: Check, batch=None) -> list[dict]:
    """Per task: {ref, verdict, why}, from the check's runs as the index has them now; `batch` is the check's
    batch as its caller holds it (ending, not saved yet), else it is read from the store."""
    with health_reading(store) as db:
        rows = db.execute("SELECT id, ref, agent, status, scored, reward, kind, reason FROM runs "
                          "WHERE batch=? ORDER BY created_at", (check.batch_id,)).fetchall()
    runs: dict[str, list[dict]] = {}
    for row in rows:
        runs.setdefault(row["ref"], []).append(dict(row))
    batch = batch or batches.load(store, check.batch_id)
    planned = dict.fromkeys(batch.refs) if batch is not None else dict.fromkeys(runs)  # tasks not started yet too
    out = [{"ref": ref, **(verdict_of(runs[ref]) if ref in runs else {
        "verdict": NOT_CHECKED, "why": "Not run yet." if batch and batch.status == batches.RUNNING else
        "The check ended before it.", "run_ids": []})} for ref in planned]
    out += [{"ref": ref, "verdict": CANNOT_RUN if not why.startswith("Over") else NOT_CHECKED, "why": why,
             "run_ids": []} for ref, why in check.skipped.items()]
    return sorted(out, key=lambda v: (VERDICTS.index(v["verdict"]), v["ref"]))


def worth_again(store: Store, check: Check, found: list[dict] | None = None) -> bool:
    """Whether a visitor may check this revision again: its check has ended and left a task unchecked, or one
    whose own runs broke (a sandbox or queue failure, not a property of the task, which a second look can clear)."""
    batch = batches.load(store, check.batch_id)
    if batch is not None and batch.status == batches.RUNNING:
        return False
    return any(v["verdict"] == NOT_CHECKED or (v["verdict"] == CANNOT_RUN and v["run_ids"])
               for v in (verdicts(store, check) if found is None else found))


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
    """The check's batch is ending: write its verdicts into the runs index, per revision, before the batch is
    saved as ended, so whoever sees it ended finds them kept."""
    check = find(store, batch.env_id, batch.revision)
    if check is None or check.batch_id != batch.id:
        return
    found = verdicts(store, check, batch)
    with closing(health_db(store)) as db:
        db.execute("BEGIN")
        db.execute("DELETE FROM health_verdicts WHERE env_id=? AND revision=?", (check.env_id, check.revision))
        db.executemany("INSERT INTO health_verdicts VALUES (?, ?, ?, ?, ?)",
                       [(check.env_id, check.revision, f["ref"], f["verdict"], f["why"][:300]) for f in found])
        db.execute("COMMIT")


def kept(store: Store, env_id: str, revision: str | None) -> dict[str, int]:
    """The kept verdict counts of one revision (empty when no check has ended): for the catalog and the API."""
    with health_reading(store) as db:
        rows = db.execute("SELECT verdict, COUNT(*) AS n FROM health_verdicts WHERE env_id=? AND revision=? "
                          "GROUP BY verdict", (env_id, revision or "")).fetchall()
    return {r["verdict"]: r["n"] for r in rows}


PROBLEMS = (NOP_PASSES, ORACLE_FAILS, FLAKY)  # what a task's check can find wrong, worst first


def env_verdict(counts: dict[str, int]) -> str:
    """One environment's verdict from its tasks' counts: the problem found on most tasks (ties: the worse one)
    when any is; else sound when any task is; else cannot run here when any task is; else not checked."""
    found = [(counts.get(v, 0), -rank, v) for rank, v in enumerate(PROBLEMS) if counts.get(v, 0)]
    if found:
        return max(found)[2]
    return next((v for v in (SOUND, CANNOT_RUN) if counts.get(v, 0)), NOT_CHECKED)


def catalog_verdicts(store: Store) -> dict[str, dict]:
    """{env id: {"verdict", "counts"}} for every environment whose latest ended check has a verdict, for the
    catalog snapshot (rlx/snapshot/build.py). An environment whose check found nothing (every task not checked)
    is left out, as one never checked: the catalog says "not checked" of both alike."""
    if not index_path(store).is_file():
        return {}
    with health_reading(store) as db:
        rows = db.execute("SELECT c.env_id, c.created_at, v.verdict, COUNT(*) AS n FROM health_checks c "
                          "JOIN health_verdicts v ON v.env_id = c.env_id AND v.revision = c.revision "
                          "GROUP BY c.env_id, c.revision, v.verdict ORDER BY c.created_at").fetchall()
    latest: dict[str, tuple[str, dict[str, int]]] = {}
    for row in rows:  # oldest first: a later check of an environment replaces an earlier one
        when, counts = latest.get(row["env_id"], ("", {}))
        if row["created_at"] != when:
            when, counts = row["created_at"], {}
        counts[row["verdict"]] = row["n"]
        latest[row["env_id"]] = (when, counts)
    out = {}
    for env_id, (_, counts) in latest.items():
        verdict = env_verdict(counts)
        if verdict != NOT_CHECKED:
            out[env_id] = {"verdict": verdict, "counts": {v: counts[v] for v in VERDICTS if counts.get(v)}}
    return out
