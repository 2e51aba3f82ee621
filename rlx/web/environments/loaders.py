"""Load-or-abort helpers: each returns what a view needs, or stops the request with the right status."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from flask import abort
from rq.job import Job, JobStatus

from rlx.adapters import Adapter, Env, Index, choose, get
from rlx.adapters.indexes import load_index, load_index_at
from rlx.auth.shelf import needs_shelf, shelf_for
from rlx.auth.visitor import visitor_token
from rlx.jobs.index import ensure_index_job
from rlx.queue.outage import current_outage
from rlx.jobs.watch import watch
from rlx.sources.base import RepoRecord
from rlx.sources.errors import SourceError, Unavailable
from rlx.web.environments.hidden import refuse_if_hidden
from rlx.sources.record_cache import app_record_cache
from rlx.sources.names import is_org_and_name
from rlx.store import app_store
from rlx.sources import app_source



@dataclass
class EnvState:
    env: Env
    adapter: Adapter
    index: Index | None  # the index of the current revision (maybe partial), or None before the first rows
    job: Job | None = None  # the indexing job, while the index is missing or partial
    progress: dict | None = None
    failure: str | None = None
    stale: dict | None = None  # the source did not answer: {"reason", "built_at"} of the index shown from disk
    notice: str | None = None  # e.g. the job runs again because its worker died
    outage: dict | None = None  # the Hub is failing: {"message", "retry_at"} (rlx/queue/outage.py)

    @property
    def ready(self) -> bool:
        return self.index is not None and self.index.complete


def _servable(index: Index | None) -> Index | None:
    """The stored index, when it can be shown without the source: complete, by an adapter at its version."""
    adapter = get(index.adapter) if index is not None and index.complete else None
    return index if adapter is not None and adapter.index_version == index.version else None


def _from_disk(record: RepoRecord | None, index: Index, outage: Exception, source, store) -> EnvState:
    """The source is down or slow: the stored index answers, at the revision it was built from."""
    record = dataclasses.replace(record or RepoRecord(id=index.env_id, repo_type="dataset"), sha=index.revision)
    env = Env(record, source, store, visitor_token())
    return EnvState(env, get(index.adapter), index, stale={"reason": str(outage), "built_at": index.built_at})


def load_env(org: str, name: str, start_indexing: bool = True) -> EnvState:
    if not is_org_and_name(org, name):
        abort(404, f"{org}/{name} is not a dataset id.")
    repo_id = f"{org}/{name}"
    refuse_if_hidden("dataset", repo_id)
    source, store = app_source(), app_store()
    stored = _servable(load_index(store, repo_id))
    # 404/403/503 via the error handler, unless an outage leaves the stored index to answer
    record, outage = app_record_cache().lookup(repo_id, visitor_token(), can_fall_back=stored is not None)
    if outage is not None:
        return _from_disk(record, stored, outage, source, store)
    if needs_shelf(record, visitor_token()):
        store = shelf_for(visitor_token())
    env = Env(record, source, store, visitor_token())
    adapter = choose(env)
    if adapter is None:
        abort(404, f"{repo_id} is in no format this explorer reads yet.")
    index = load_index_at(store, repo_id, record.sha)
    current = index is not None and index.adapter == adapter.key and index.version == adapter.index_version
    state = EnvState(env, adapter, index if current else None)
    if state.ready or not start_indexing:
        return state
    if store is not app_store():
        return _index_on_shelf(state)
    job = ensure_index_job(repo_id, record.sha)
    if job.get_status() == JobStatus.FINISHED:  # finished, yet no current index (the store was wiped): again
        job = ensure_index_job(repo_id, record.sha, retry=True)
    state.job = job
    watched = watch(job)
    state.progress, state.failure, state.notice = watched.progress, watched.failure, watched.notice
    state.outage = _outage_of(job, state)
    return state


def _outage_of(job: Job, state: EnvState) -> dict | None:
    """What the page says of a failing Hub: the job's own outage when it failed on one, else the last outage a
    job saw while this one waits or runs (so a first open never just says "waiting")."""
    retry_at = job.meta.get("retry_at") if state.failure else None
    if isinstance(retry_at, (int, float)):
        return {"message": state.failure, "retry_at": retry_at}
    return None if state.failure else current_outage(job.connection)


def _index_on_shelf(state: EnvState) -> EnvState:
    """Index a private or gated repository for this visitor, in this request: a background job would have to
    carry the token through Redis, and tokens are never written anywhere."""
    try:
        state.index = state.adapter.build_index(state.env)
    except SourceError as exc:
        if isinstance(exc, Unavailable):
            raise
        state.failure = str(exc)
    return state
