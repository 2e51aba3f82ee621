"""Every job this app puts on a queue is put there here: index and snapshot builds (at most once under their id),
rollouts (one job per run, on `rollouts` or, for a health check's runs, `bulk`) and the cancellation of a lost run's
HF sandbox. Each takes its queue's settings from rlx/jobs/queues.py.

`enqueue_once` is the one place that decides what an existing job with the same id means: an active one is
returned (two visitors share it); a finished or failed one is returned or replaced as the caller says; a
race with another enqueuer returns the job that won.
"""

from __future__ import annotations

from typing import Callable

from rq import Callback, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from rlx.jobs.queues import QUEUES, ROLLOUTS, SANDBOX_CANCEL, get_queue
from rlx.queue.connection import delete_job, get_redis

try:  # RQ >= 2.8 enqueues atomically with unique=True
    from rq.exceptions import DuplicateJobError
except ImportError:  # pragma: no cover
    DuplicateJobError = None

ACTIVE = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED}
ROLLOUT_JOB, ROLLOUT_FAILED = "rlx.runs.runner.run_rollout", "rlx.jobs.settle.job_failed"
SANDBOX_CANCEL_JOB = "rlx.runs.sandboxes.cancel_left_behind"
# The module of every function a job runs or calls back: a worker imports them before it forks a work horse per
# job, which would otherwise import them again for each job (tests/queue/test_worker_app.py holds it to this).
JOB_MODULES = ("rlx.jobs.index", "rlx.jobs.snapshot", "rlx.runs.runner", "rlx.runs.sandboxes", "rlx.jobs.settle")


def enqueue_once(queue: str, func: Callable, *args, job_id: str, description: str,
                 keep: Callable[[Job], bool] = lambda job: job.get_status() in ACTIVE, attempts: int = 1) -> Job:
    """The job `job_id`: the existing one when `keep(it)`, else a new one on `queue` with that queue's
    timeouts (an existing job not kept is deleted first). An idempotent job may run up to `attempts` times: a run
    whose worker died is run again (an error the job raises is final)."""
    redis = get_redis()
    try:
        job = Job.fetch(job_id, connection=redis)
        if keep(job):
            return job
        delete_job(job)
    except NoSuchJobError:
        pass
    settings = QUEUES[queue]
    try:
        return get_queue(queue).enqueue(func, *args, job_id=job_id, unique=True, job_timeout=settings.job_timeout,
                                        result_ttl=settings.result_ttl, failure_ttl=settings.failure_ttl,
                                        description=description,
                                        retry=Retry(max=attempts - 1) if attempts > 1 else None)
    except Exception as exc:
        if DuplicateJobError is not None and isinstance(exc, DuplicateJobError):
            return Job.fetch(job_id, connection=redis)  # another caller enqueued it a moment ago
        raise


def enqueue_rollout(run_id: str, job_id: str, job_timeout: int, queue: str = ROLLOUTS) -> Job:
    """One rollout's job, run once (a rollout is not idempotent: a dead worker's run ends failed, by its failure
    callback or by rlx/jobs/settle.py); `job_timeout` is the task's own (rlx/runs/launch.py)."""
    settings = QUEUES[queue]
    return get_queue(queue).enqueue(
        ROLLOUT_JOB, run_id, job_id=job_id, job_timeout=job_timeout,
        result_ttl=settings.result_ttl, failure_ttl=settings.failure_ttl,
        on_failure=Callback(ROLLOUT_FAILED), description=f"rollout {run_id}")


def enqueue_sandbox_cancel(run_id: str) -> Job:
    """Cancel, from a worker, the HF sandbox a run left behind when it ended without its job's own cleanup."""
    return get_queue(ROLLOUTS).enqueue(
        SANDBOX_CANCEL_JOB, run_id, job_timeout=SANDBOX_CANCEL.job_timeout,
        result_ttl=SANDBOX_CANCEL.result_ttl, failure_ttl=SANDBOX_CANCEL.failure_ttl,
        description=f"cancel sandbox of {run_id}")
