"""Indexing one dataset as an RQ job, and starting that job at most once per revision."""

from __future__ import annotations

import logging
import re
import time

from flask import current_app
from rq.job import Job, JobStatus, get_current_job

from rlx.adapters import Env, choose
from rlx.queue.outage import note_outage
from rlx.queue import Progress
from rlx.jobs.enqueue import ACTIVE, enqueue_once
from rlx.jobs.queues import INDEX, JOB_ATTEMPTS
from rlx.sources.errors import Unavailable

log = logging.getLogger("rlx.jobs")
STEPS = ["listing", "fetching", "packing"]
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def index_job_id(repo_id: str, revision: str | None) -> str:
    """One id per dataset and revision: two visitors opening the same dataset share one job."""
    return "index-" + _UNSAFE.sub("-", f"{repo_id.replace('/', '--')}-{(revision or 'main')[:16]}")


def index_dataset(repo_id: str, revision: str | None = None) -> dict:
    """The job: read the dataset through its adapter and write its index and pack to the store."""
    app = current_app
    source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
    progress = Progress.for_current_job(STEPS)
    try:
        record = source.repo_info("dataset", repo_id, token=None)
        env = Env(record, source, store)
        adapter = choose(env)
        if adapter is None:
            raise ValueError(f"{repo_id} is in no format this explorer reads.")
        index = adapter.build_index(env, progress)
    except Exception as exc:
        progress.fail(str(exc) or type(exc).__name__)
        job = get_current_job()
        if isinstance(exc, Unavailable) and job is not None:
            # An outage is not a fact about this revision: the next visit after the source's wait tries again.
            job.meta["retry_at"] = time.time() + exc.retry_after
            job.save_meta()
            note_outage(job.connection, exc)  # every page waiting on the Hub says so now
        raise
    _refresh_catalog()
    _check_health(env, adapter, index)
    return {"tasks": len(index.rows), "revision": index.revision, "seconds": index.summary.get("seconds")}


def _check_health(env, adapter, index) -> None:
    """A new revision's health check, when the server checks every revision (RLX_HEALTH_CHECKS=auto)."""
    from rlx.runs.health_check import after_index

    try:
        after_index(env, adapter, index)
    except Exception:  # the index is written; the check can still be started from the environment page
        log.warning("could not start the health check of %s", env.id, exc_info=True)


def _refresh_catalog() -> None:
    """A new index changes the catalog's task counts: ask for a snapshot build (one at a time, queued once)."""
    from rlx.jobs.snapshot import ensure_snapshot_job

    try:
        ensure_snapshot_job()
    except Exception:  # the index is written; a missed refresh only delays the counts until the next run
        log.warning("could not queue a snapshot build after indexing", exc_info=True)


def ensure_index_job(repo_id: str, revision: str | None, retry: bool = False) -> Job:
    """The job indexing this revision: the running or finished one, or a new one (a failed one only when asked
    to retry, or when it failed on an outage whose wait is over)."""
    def keep(job: Job) -> bool:
        status = job.get_status()
        if status in ACTIVE or status == JobStatus.FINISHED:
            return True
        return status == JobStatus.FAILED and not retry and time.time() < job.meta.get("retry_at", float("inf"))

    return enqueue_once(INDEX, index_dataset, repo_id, revision, job_id=index_job_id(repo_id, revision),
                        description=f"index {repo_id}", keep=keep, attempts=JOB_ATTEMPTS)
