"""Load-or-abort helpers: each returns what a view needs, or stops the request with the right status."""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass

from flask import abort, current_app
from rq.job import Job, JobStatus

from rlx.adapters import Adapter, Env, Index, choose
from rlx.adapters.indexes import load_index
from rlx.jobs.index import ensure_index_job
from rlx.queue import read_progress

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
RECORD_TTL_S = 30.0  # a repository's record (revision, counters) is asked of the source at most this often


@dataclass
class EnvState:
    env: Env
    adapter: Adapter
    index: Index | None  # the index of the current revision (maybe partial), or None before the first rows
    job: Job | None = None  # the indexing job, while the index is missing or partial
    progress: dict | None = None
    failure: str | None = None

    @property
    def ready(self) -> bool:
        return self.index is not None and self.index.complete


def visitor_token() -> str | None:
    """The signed-in visitor's token (sign-in arrives with the auth work; until then, anonymous)."""
    return None


def _repo_info(source, repo_id: str, token: str | None):
    """The source's record, remembered briefly per visitor token, so a page view does not wait on the Hub."""
    _records = current_app.extensions.setdefault("rlx.records", {})  # per app: each app has its own source
    key = (repo_id, hashlib.sha256(token.encode()).hexdigest() if token else None)
    hit = _records.get(key)
    if hit and time.monotonic() - hit[0] < RECORD_TTL_S:
        return hit[1]
    record = source.repo_info("dataset", repo_id, token=token)
    _records[key] = (time.monotonic(), record)
    while len(_records) > 4096:
        _records.pop(next(iter(_records)))
    return record


def load_env(org: str, name: str, start_indexing: bool = True) -> EnvState:
    if not (_NAME.match(org) and _NAME.match(name)):
        abort(404, f"{org}/{name} is not a dataset id.")
    repo_id = f"{org}/{name}"
    source, store = current_app.extensions["rlx.source"], current_app.extensions["rlx.store"]
    record = _repo_info(source, repo_id, visitor_token())  # 404/403/503 via the error handler
    env = Env(record, source, store, visitor_token())
    adapter = choose(env)
    if adapter is None:
        abort(404, f"{repo_id} is in no format this explorer reads yet.")
    index = load_index(store, repo_id)
    current = (index is not None and index.revision == record.sha and index.adapter == adapter.key
               and index.version == adapter.index_version)
    state = EnvState(env, adapter, index if current else None)
    if state.ready or not start_indexing:
        return state
    job = ensure_index_job(repo_id, record.sha)
    if job.get_status() == JobStatus.FINISHED:  # finished, yet no current index (the store was wiped): again
        job = ensure_index_job(repo_id, record.sha, retry=True)
    state.job = job
    state.progress = read_progress(job)
    if job.get_status() == JobStatus.FAILED:
        state.failure = (state.progress or {}).get("message") or "indexing failed."
    return state
