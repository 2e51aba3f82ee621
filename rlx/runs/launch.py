"""Starting, stopping and settling runs, from whichever process asks: the web, the CLI, a test.

`start_run` writes the record and queues the job (one per rollout, on `rollouts`); the job's time limit sits
above the task's own timeouts. `settle` is how a run whose job died without saying so (a killed work horse, a
lost worker, RQ's own time limit) still ends as a record that says failed and why: RQ's failure callback calls
it, and so does anyone reading a run that looks active while its job is not.
"""

from __future__ import annotations

import logging

from flask import current_app
from rq import Callback
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from rlx.adapters.indexes import load_pack
from rlx.queue import get_queue, get_redis
from rlx.queue.defaults import QUEUES
from rlx.queue.liveness import Liveness, job_lost
from rlx.runs import events, index, limits, models, record, sandboxes
from rlx.runs.failures import failure_from_text
from rlx.runs.record import FAILED, QUEUED, STOPPED, RunRecord
from rlx.store.writable import is_store_full
from rlx.store import app_store

log = logging.getLogger("rlx.runs")
AGENTS = ("oracle", "nop", "terminus-2")
MARGIN_SEC = 300  # above the task's own timeouts: setup, copying files, Harbor's teardown
MAX_JOB_SEC = QUEUES["rollouts"].job_timeout


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


def start_run(run: RunRecord, pack_store=None, queue: str = "rollouts") -> RunRecord:
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
        index.upsert(store, run)
        events.publish(redis, run.id, "status", status=QUEUED)
        defaults = QUEUES["rollouts"]
        get_queue(queue).enqueue(
            "rlx.runs.runner.run_rollout", run.id, job_id=run.job_id, job_timeout=run.job_timeout,
            result_ttl=defaults.result_ttl, failure_ttl=defaults.failure_ttl,
            on_failure=Callback("rlx.runs.launch.job_failed"), description=f"rollout {run.id}",
        )
    except BaseException:
        _undo_start(store, redis, run)
        raise
    return run


def _undo_start(store, redis, run: RunRecord) -> None:
    """A run that could not be queued (a full store, Redis gone) gives its slot back and leaves no record."""
    import shutil

    for undo in (lambda: limits.release_slot(redis, limits.slot_owner(run) or "-", run.id),
                 lambda: index.remove(store, run.id),
                 lambda: shutil.rmtree(record.run_dir(store, run.id), ignore_errors=True)):
        try:
            undo()
        except Exception:
            log.warning("run %s: undoing its start failed", run.id, exc_info=True)


def request_stop(run: RunRecord) -> RunRecord:
    """Ask a run to stop: a queued one is cancelled at once, a running one by its job within a second."""
    from rlx.runs.runner import stop_key

    redis = get_redis()
    redis.set(stop_key(run.id), "1", ex=24 * 60 * 60)
    if run.status == QUEUED:
        try:
            Job.fetch(run.job_id, connection=redis).cancel()
        except NoSuchJobError:
            pass
        return _finish(run, STOPPED, "Stopped by its owner before it started.", None)
    return run


def job_failed(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback: the job raised past our own handling, or RQ stopped it."""
    run_id = (job.args or [None])[0]
    store = app_store()
    run = record.load(store, run_id) if run_id else None
    if run is not None and run.active:
        _finish(run, FAILED, _why(exc_type, job), getattr(exc_type, "__name__", None))


def settle(run: RunRecord) -> RunRecord:
    """An active record whose job is no longer alive is marked failed, with the reason RQ kept."""
    if not run.active or not run.job_id:
        return run
    redis = get_redis()
    try:
        job = Job.fetch(run.job_id, connection=redis)
        status = job.get_status(refresh=True)
    except NoSuchJobError:
        return _finish(run, FAILED, "Its job disappeared from the queue (Redis was reset?).", "LostJob")
    if status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
        return _finish(run, FAILED, _why_from_job(job), "JobFailed")
    if status == JobStatus.STARTED and job_lost(job, Liveness.of(current_app.config["RLX"])):
        return _finish(run, FAILED, "The worker running it stopped (killed or restarted) before it finished.",
                       "WorkerLost")
    return run


def _finish(run: RunRecord, status: str, outcome: str, error_type: str | None) -> RunRecord:
    store, redis = app_store(), get_redis()
    current = record.load(store, run.id) or run
    if not current.active:
        return current
    current.status, current.outcome, current.error_type = status, outcome, error_type
    current.finished_at = record.now_iso()
    _remove_scratch(current.id)
    models.drop_secret(redis, current.id)  # a run stopped while queued never had its job take the key
    limits.release_slot(redis, limits.slot_owner(current) or "-", current.id)
    record.release_space(store, current.id)  # its last word must fit, even on a store that filled up
    try:
        index.upsert(store, current)  # before the record, as the job does: a record seen ended is indexed ended
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
    next_batch_runs(store, redis, current)
    return current


def next_batch_runs(store, redis, run: RunRecord) -> None:
    """A batch's run has ended: let its batch start the next ones. A failure here must not undo the run's end."""
    if not run.batch:
        return
    from rlx.runs import batch

    try:
        batch.advance(store, redis, run.batch)
    except Exception:
        log.warning("batch %s could not start its next runs", run.batch, exc_info=True)


def _why(exc_type, job) -> str:
    name = getattr(exc_type, "__name__", str(exc_type))
    if name == "JobTimeoutException":
        return f"It ran past its time limit ({job.timeout} s) and was stopped."
    if name == "AbandonedJobError":
        return "The worker running it stopped (killed or restarted) before it finished."
    return f"The job failed: {name}."


def _why_from_job(job) -> str:
    text = ""
    try:
        result = job.latest_result()
        text = (result.exc_string or "") if result else ""
    except Exception:  # an old RQ result format: the generic sentence below is enough
        pass
    if "JobTimeoutException" in text:
        return f"It ran past its time limit ({job.timeout} s) and was stopped."
    if "terminated unexpectedly" in text or "Work-horse" in text:
        return "The process running it was killed before it finished."
    last = text.strip().splitlines()[-1] if text.strip() else ""
    type_name, _, message = last.partition(":")
    infrastructure = failure_from_text(type_name.strip(), last)
    if infrastructure is not None:
        return infrastructure[1]
    # The exception's name only: its message (a socket path, a host's folder) is for the worker's log.
    return f"Its job failed ({type_name.strip().rsplit('.', 1)[-1][:80]})." if last else \
        "Its job failed; no reason was recorded."


def _remove_scratch(run_id: str) -> None:
    """The task copy a dead job could not remove (the job's own `finally` removes it otherwise)."""
    import shutil

    for path in current_app.config["RLX"].cache_dir.glob(f"rlx-run-{run_id}-*"):
        shutil.rmtree(path, ignore_errors=True)
