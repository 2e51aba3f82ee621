"""Starting and stopping runs, from whichever process asks: the web, the CLI, a test.

`start_run` writes the record and queues the job (one per rollout, on `rollouts`, through rlx/jobs/enqueue.py);
the job's time limit sits above the task's own timeouts. `finish` ends a run from outside its job: a stop before it
started, or rlx/jobs/settle.py for a job that died without saying so.
"""

from __future__ import annotations

import logging

from flask import current_app
from rq.exceptions import NoSuchJobError
from rq.job import Job

from rlx.adapters.indexes import load_pack
from rlx.jobs.enqueue import enqueue_rollout
from rlx.jobs.queues import QUEUES, ROLLOUTS
from rlx.queue import get_redis
from rlx.queue.defaults import KEY_PREFIX
from rlx.runs import events, judges, limits, models, record, runs_db, sandboxes
from rlx.runs.record import QUEUED, STOPPED, RunRecord
from rlx.store.writable import is_store_full
from rlx.store import app_store

log = logging.getLogger("rlx.runs")
AGENTS = ("oracle", "nop", "terminus-2")
MARGIN_SEC = 300  # above the task's own timeouts: setup, copying files, Harbor's teardown
MAX_JOB_SEC = QUEUES[ROLLOUTS].job_timeout


def job_timeout_for(store, env_id: str, ref: str) -> int:
    """Seconds the job may run: the task's build, agent and verifier timeouts plus a margin, capped."""
    entry = ((load_pack(store, env_id) or {}).get("tasks") or {}).get(ref) or {}
    config = entry.get("config") or {}

    def seconds(table: str, key: str, default: float) -> float:
        value = (config.get(table) or {}).get(key)
        return float(value) if isinstance(value, (int, float)) and value > 0 else default

    steps = max(1, len(config.get("steps") or []))
    total = (seconds("environment", "build_timeout_sec", 600) + 360
             + steps * (seconds("agent", "timeout_sec", 600) + seconds("verifier", "timeout_sec", 600)))
    return int(min(total + MARGIN_SEC, MAX_JOB_SEC))


def start_run(run: RunRecord, pack_store=None, queue: str = ROLLOUTS) -> RunRecord:
    """`pack_store` is where the dataset's pack is (a visitor's shelf for a private dataset; the store otherwise);
    `queue` is `rollouts`, or `bulk` for runs nobody is waiting for (an environment's health check)."""
    store = app_store()
    run.job_timeout = run.job_timeout or job_timeout_for(pack_store or store, run.env_id, run.ref)
    run.job_id = f"run-{run.id}"
    redis = get_redis()
    limits.take_slot(redis, limits.slot_owner(run), run.id, run.job_timeout)  # raises LimitReached: nothing written
    try:
        record.reserve_space(store, run.id)  # first: a store too full for it refuses the run before anything
        record.save(store, run)
        runs_db.upsert(store, run)
        events.publish(redis, run.id, "status", status=QUEUED)
        enqueue_rollout(run.id, run.job_id, run.job_timeout, queue)
    except BaseException:
        _undo_start(store, redis, run)
        raise
    return run


def _undo_start(store, redis, run: RunRecord) -> None:
    """A run that could not be queued (a full store, Redis gone) gives its slot back and leaves no record."""
    import shutil

    for undo in (lambda: limits.release_slot(redis, limits.slot_owner(run) or "-", run.id),
                 lambda: runs_db.remove(store, run.id),
                 lambda: shutil.rmtree(record.run_dir(store, run.id), ignore_errors=True)):
        try:
            undo()
        except Exception:
            log.warning("run %s: undoing its start failed", run.id, exc_info=True)


def stop_key(run_id: str) -> str:
    """Set while the run's owner (or its batch's) asks it to stop; its job polls it (rlx/runs/runner.py)."""
    return f"{KEY_PREFIX}run:{run_id}:stop"


def request_stop(run: RunRecord) -> RunRecord:
    """Ask a run to stop: a queued one is cancelled at once, a running one by its job within a second."""
    redis = get_redis()
    redis.set(stop_key(run.id), "1", ex=24 * 60 * 60)
    if run.status == QUEUED:
        try:
            Job.fetch(run.job_id, connection=redis).cancel()
        except NoSuchJobError:
            pass
        return finish(run, STOPPED, "Stopped by its owner before it started.", None)
    return run


def finish(run: RunRecord, status: str, outcome: str, error_type: str | None) -> RunRecord:
    """End an active run as `status`, from outside its job: its record, index entry, slot and events say so."""
    store, redis = app_store(), get_redis()
    current = record.load(store, run.id) or run
    if not current.active:
        return current
    current.status, current.outcome, current.error_type = status, outcome, error_type
    current.finished_at = record.now_iso()
    _remove_scratch(current.id)
    models.drop_secret(redis, current.id)  # a run stopped while queued never had its job take the key
    judges.drop_judge_secret(redis, current.id)  # nor its judge's token
    limits.release_slot(redis, limits.slot_owner(current) or "-", current.id)
    record.release_space(store, current.id)  # its last word must fit, even on a store that filled up
    try:
        runs_db.upsert(store, current)  # before the record, as the job does: a record seen ended is indexed ended
        record.save(store, current)
    except Exception as exc:
        if not is_store_full(exc):
            raise
        log.warning("run %s ended on a full store; its record could not be updated", current.id)
        return current  # told as it is to whoever asked; the next reader settles it again
    events.publish(redis, current.id, "status", status=status, outcome=outcome, reward=None, scored=False)
    events.publish(redis, current.id, "end", status=status, outcome=outcome)
    events.archive(redis, store, current.id)
    sandboxes.after_lost_run(redis, current)
    return current


def _remove_scratch(run_id: str) -> None:
    """The task copy a dead job could not remove (the job's own `finally` removes it otherwise)."""
    import shutil

    for path in current_app.config["RLX"].cache_dir.glob(f"rlx-run-{run_id}-*"):
        shutil.rmtree(path, ignore_errors=True)
