"""Watching a rollout's job: a run whose job died without saying so (a killed work horse, a lost worker, RQ's own
time limit) still ends as a record that says failed and why.

RQ's failure callback (`job_failed`, set by rlx/jobs/enqueue.py) ends it from the worker and lets its batch start
its next runs; `settle` ends it for anyone reading a run that looks active while its job is not, and changes
nothing else (rlx/jobs/watch.py does the same for index and
snapshot jobs).
"""

from __future__ import annotations

from flask import current_app
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from rlx.queue import get_redis
from rlx.queue.liveness import Liveness, job_lost
from rlx.runs import record
from rlx.runs.failures import failure_from_text
from rlx.runs.batch import after_run
from rlx.runs.launch import finish
from rlx.runs.record import FAILED, RunRecord
from rlx.store import app_store


def job_failed(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback: the job raised past our own handling, or RQ stopped it."""
    run_id = (job.args or [None])[0]
    store = app_store()
    run = record.load(store, run_id) if run_id else None
    if run is None:
        return
    if run.active:
        run = finish(run, FAILED, _why(exc_type, job), getattr(exc_type, "__name__", None))
    after_run(store, get_redis(), run)  # ended here or by a page's `settle` before: its batch goes on, from here


def settle(run: RunRecord) -> RunRecord:
    """An active record whose job is no longer alive is marked failed, with the reason RQ kept. Called by pages
    as they read a run, so it never moves the run's batch on (the failure callback above, or the workers' sweep,
    does)."""
    if not run.active or not run.job_id:
        return run
    redis = get_redis()
    try:
        job = Job.fetch(run.job_id, connection=redis)
        status = job.get_status(refresh=True)
    except NoSuchJobError:
        return finish(run, FAILED, "Its job disappeared from the queue (Redis was reset?).", "LostJob")
    if status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
        return finish(run, FAILED, _why_from_job(job), "JobFailed")
    if status == JobStatus.STARTED and job_lost(job, Liveness.of(current_app.config["RLX"])):
        return finish(run, FAILED, "The worker running it stopped (killed or restarted) before it finished.",
                       "WorkerLost")
    return run


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
