"""Job plumbing every job shares: enqueue a job at most once under its id, and a progress that goes nowhere.

`enqueue_once` is the one place that decides what an existing job with the same id means: an active one is
returned (two visitors share it); a finished or failed one is returned or replaced as the caller says; a
race with another enqueuer returns the job that won.
"""

from __future__ import annotations

from typing import Callable

from rq import Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from rlx.queue.connection import delete_job, get_queue, get_redis
from rlx.queue.defaults import QUEUES
from rlx.queue.progress import Progress

try:  # RQ >= 2.8 enqueues atomically with unique=True
    from rq.exceptions import DuplicateJobError
except ImportError:  # pragma: no cover
    DuplicateJobError = None

ACTIVE = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED}


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
    defaults = QUEUES[queue]
    try:
        return get_queue(queue).enqueue(func, *args, job_id=job_id, unique=True, job_timeout=defaults.job_timeout,
                                        result_ttl=defaults.result_ttl, failure_ttl=defaults.failure_ttl,
                                        description=description,
                                        retry=Retry(max=attempts - 1) if attempts > 1 else None)
    except Exception as exc:
        if DuplicateJobError is not None and isinstance(exc, DuplicateJobError):
            return Job.fetch(job_id, connection=redis)  # another caller enqueued it a moment ago
        raise


class NullProgress(Progress):
    """Progress for work run outside a job (tests, scripts): every call is accepted, nothing is written."""

    def __init__(self):
        super().__init__(steps=[])

    def start(self, name, total=None, message=""):
        pass

    def update(self, name, done, total=None, message=None):
        pass

    def finish(self, name, message=""):
        pass

    def fail(self, message):
        pass
