"""What a page says about a job it waits for: its progress, and, when its worker died, what happened next.

A job whose worker died stays "started" until a registry cleanup calls it abandoned: workers run that cleanup every
few seconds, and a page watching the job runs it too (a lone worker may be the one that died), so the job is put
back on its queue (a bounded number of times) or failed within seconds of its worker's death (a minute, when that
worker's machine cannot be seen from here: rlx/queue/liveness.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, has_app_context
from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry

from rlx.queue.connection import maintenance_lock
from rlx.jobs.queues import JOB_ATTEMPTS
from rlx.queue.liveness import Liveness, expire_lost
from rlx.queue.progress import read_progress


@dataclass
class Watched:
    status: JobStatus | None
    progress: dict | None
    failure: str | None = None  # the job failed: why, in a sentence
    notice: str | None = None  # the job runs again after its worker died


def watch(job: Job, doing: str = "indexing this") -> Watched:
    """The job's state for a page; `doing` names the work in sentences ("the worker indexing this ...")."""
    reap_if_abandoned(job)
    progress = read_progress(job)  # refreshes the job
    status = job.get_status(refresh=False)
    watched = Watched(status, progress)
    retried = _retries_used(job)
    if status == JobStatus.FAILED:
        if _failed_by_its_own_error(progress):
            watched.failure = progress.get("message") or "the job failed."
        elif retried:
            watched.failure = (f"the worker {doing} stopped unexpectedly, {retried + 1} times in a row, so it "
                               "was given up.")
        else:
            watched.failure = f"the worker {doing} stopped unexpectedly."
    elif retried and status in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED):
        watched.notice = f"The worker {doing} stopped unexpectedly; retrying ({retried + 1} of {JOB_ATTEMPTS})."
    return watched


def reap_if_abandoned(job: Job) -> None:
    """If the job's worker is dead (rlx/queue/liveness.py), run RQ's cleanup of its queue's started registry now."""
    if job.get_status() != JobStatus.STARTED:
        return
    registry = StartedJobRegistry(job.origin, connection=job.connection)
    expire_lost(registry, _liveness(), only=job.id)
    if job.id not in registry.get_expired_job_ids():
        return
    with maintenance_lock(Queue(job.origin, connection=job.connection)) as mine:
        if mine:  # else a worker (or another page) is cleaning this queue right now
            registry.cleanup()


def _liveness() -> Liveness:
    """The deployment's settings inside the app; RQ's defaults as we set them when called from outside it."""
    return Liveness.of(current_app.config["RLX"]) if has_app_context() else Liveness()


def _retries_used(job: Job) -> int:
    """Runs of this job cut short by their worker's death and run again (only those use a retry)."""
    return 0 if job.retries_left is None else max(0, JOB_ATTEMPTS - 1 - job.retries_left)


def _failed_by_its_own_error(progress: dict | None) -> bool:
    """Our jobs mark their running step failed, with the reason, when they raise; a killed run cannot."""
    return any(step.get("state") == "failed" for step in (progress or {}).get("steps", []))
