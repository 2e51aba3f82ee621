"""Each queue's timeouts and TTLs, and how fast a dead worker is noticed: chosen here, not inherited from RQ."""

from dataclasses import dataclass


@dataclass(frozen=True)
class QueueDefaults:
    job_timeout: int  # seconds a job may run before the worker stops it
    result_ttl: int  # seconds a finished job (and its progress) stays readable
    failure_ttl: int  # seconds a failed job stays in the failed registry


QUEUES = {
    # Indexing one dataset: big repositories take minutes; the result is on disk, the job record is for progress.
    "index": QueueDefaults(job_timeout=30 * 60, result_ttl=60 * 60, failure_ttl=24 * 60 * 60),
    # Building the catalog snapshot: the hourly indexer run.
    "snapshot": QueueDefaults(job_timeout=55 * 60, result_ttl=6 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
    # One rollout of an agent on a task.
    "rollouts": QueueDefaults(job_timeout=2 * 60 * 60, result_ttl=24 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
    # Rollouts nobody is waiting for (an environment's health check): listed last, so a worker takes them only
    # when no visitor's rollout is queued (RQ takes from its queues in order).
    "bulk": QueueDefaults(job_timeout=2 * 60 * 60, result_ttl=24 * 60 * 60, failure_ttl=7 * 24 * 60 * 60),
}

# Our own Redis keys read rlx:<area>:<id>.
KEY_PREFIX = "rlx:"

# How a dead worker is noticed (rlx/queue/liveness.py has the rule). A worker writes its heartbeat every
# WORKER_HEARTBEAT_S (idle: between short dequeue waits; busy: while watching its work horse). A busy or overloaded
# machine may delay it: a worker is dead once its heartbeat has lapsed by WORKER_LAPSE_S more (RQ's own margin is a
# minute), or sooner once LATE_BEATS beats are missed and its process is gone from this machine. Its started job is
# then put back on its queue (at most JOB_ATTEMPTS runs in all) or failed. Both seconds are settings
# (RLX_WORKER_HEARTBEAT_S, RLX_WORKER_LAPSE_S); these are their defaults.
WORKER_HEARTBEAT_S = 2
WORKER_LAPSE_S = 60
LATE_BEATS = 5
MAINTENANCE_INTERVAL_S = 3
MAINTENANCE_LOCK_S = 10  # one process cleans a queue's registries at a time; a dead one's turn lapses
JOB_ATTEMPTS = 3  # index and snapshot jobs are idempotent: a run cut short by a dead worker is run again
