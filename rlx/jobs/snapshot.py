"""The indexer as an RQ job on the `snapshot` queue, and starting that job at most once at a time."""

from __future__ import annotations

import os

from flask import current_app
from rq.job import Job

from rlx.queue import Progress
from rlx.jobs.enqueue import enqueue_once
from rlx.jobs.queues import JOB_ATTEMPTS, SNAPSHOT
from rlx.snapshot.refresh import STEPS, ListingRefused, refresh_catalog
from rlx.store.settings_file import SettingsFile

SNAPSHOT_JOB_ID = "snapshot-build"  # one indexer run at a time, whoever asks


def build_catalog_snapshot(force: bool = False) -> dict:
    """The job: one indexer run (listing, indexes, snapshot, publication), its progress on the job."""
    app = current_app
    source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
    progress = Progress.for_current_job(STEPS)
    settings = SettingsFile(store.settings_path).get()
    try:
        summary = refresh_catalog(source, store, app.config["RLX"].cache_dir, settings=settings, force=force,
                              progress=progress, token=job_token(source))
    except Exception as exc:
        progress.fail(str(exc) or type(exc).__name__)
        raise
    if summary["refused"]:
        raise ListingRefused(summary["refused"])  # a failed job, so whoever watches the queue sees it
    return summary


def job_token(source) -> str | None:
    """The Job's own HF_TOKEN, for reading public datasets with higher rate limits (never a visitor's)."""
    return (os.environ.get("HF_TOKEN") or None) if source.kind == "hub" else None


def ensure_snapshot_job(force: bool = False) -> Job:
    """The queued or running indexer job, or a new one (a finished or failed one is replaced)."""
    return enqueue_once(SNAPSHOT, build_catalog_snapshot, force, job_id=SNAPSHOT_JOB_ID,
                        description="build the catalog snapshot", attempts=JOB_ATTEMPTS)
