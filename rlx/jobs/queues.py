"""Every RQ queue this app uses, with its time limit, how long its results are kept, and how often a job is tried.

One place decides them, so a job's settings are not repeated at each enqueue (rlx/jobs/enqueue.py reads them here)
and RQ's own defaults never apply. A worker takes from its queues in the order they are listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rq import Queue

from rlx.queue.connection import get_redis


@dataclass(frozen=True)
class QueueSettings:
    job_timeout: int  # seconds a job may run before the worker stops it
    result_ttl: int  # seconds a finished job (and its progress) stays readable
    failure_ttl: int  # seconds a failed job stays in the failed registry


INDEX, SNAPSHOT, ROLLOUTS, BULK = "index", "snapshot", "rollouts", "bulk"
QUEUES = {
    # Indexing one dataset: big repositories take minutes; the result is on disk, the job record is for progress.
    INDEX: QueueSettings(job_timeout=30 * 60, result_ttl=60 * 60, failure_ttl=24 * 60 * 60),
    # Building the catalog snapshot: the hourly refresh.
    SNAPSHOT: QueueSettings(job_timeout=55 * 60, result_ttl=6 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
    # One rollout of an agent on a task (and a lost run's sandbox cancellation).
    ROLLOUTS: QueueSettings(job_timeout=2 * 60 * 60, result_ttl=24 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
    # Rollouts nobody is waiting for (an environment's health check): listed last, so a worker takes them only
    # when no visitor's rollout is queued (RQ takes from its queues in order).
    BULK: QueueSettings(job_timeout=2 * 60 * 60, result_ttl=24 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
}
# Cancelling a lost run's HF sandbox: one API call per sandbox job, on the rollouts queue.
SANDBOX_CANCEL = QueueSettings(job_timeout=120, result_ttl=600, failure_ttl=24 * 60 * 60)
JOB_ATTEMPTS = 3  # index and snapshot jobs are idempotent: a run cut short by a dead worker is run again


def get_queue(name: str) -> Queue:
    return Queue(name, connection=get_redis(), default_timeout=QUEUES[name].job_timeout)
