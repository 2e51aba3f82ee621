"""Each queue's timeouts and TTLs, chosen here rather than inherited from RQ's defaults."""

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
}

# Our own Redis keys read rlx:<area>:<id>.
KEY_PREFIX = "rlx:"
