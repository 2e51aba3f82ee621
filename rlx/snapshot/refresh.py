"""The indexer: one run fetches the listing, rebuilds the dataset indexes that changed, builds the catalog
snapshot on local disk and publishes it (the database first, then the pointer).

It runs hourly as an HF Job (`rlx snapshot build`) or as an RQ job on the `snapshot` queue. Every run publishes a
whole snapshot or nothing: a listing that fails or comes back much smaller than the last snapshot's, a build that
fails, a copy that lands short — each leaves the previous pointer in place. Reruns are safe: a current index costs
no call to the source, and the snapshot is always built afresh from the listing and the indexes on disk (the rows
of a dataset whose index is unchanged copied from the published snapshot, the others read from the store).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from rq.timeouts import BaseTimeoutException

from rlx.adapters import Adapter, Env, Index, choose, get
from rlx.adapters.registry import may_read, sure_from_record
from rlx.catalog import fetch_listing, write_listing_file
from rlx.runs.health import catalog_verdicts
from rlx.snapshot.build import build_snapshot, env_id_of
from rlx.snapshot.publish import copy_published, publish
from rlx.snapshot.row_sources import StoredIndexes
from rlx.snapshot.schema import pointer_name
from rlx.snapshot.scratch import build_folder
from rlx.snapshot.state import IndexerState, load_state, save_state
from rlx.sources.base import RepoRecord, Source
from rlx.sources.errors import SourceError, Unavailable
from rlx.store import Store, read_json, remove_abandoned_temps
from rlx.store.settings import AdminSettings

log = logging.getLogger("rlx.indexer")

STEPS = ["listing", "indexes", "building", "publishing"]
REFUSE_BELOW = 0.8  # a listing under this share of the last snapshot's (overall, datasets or Spaces) is refused
OUTAGE_STREAK = 3  # builds in a row failing with "source unavailable": the source is down, stop building
MODIFIED_MARGIN_S = 300  # a repository touched this close to its index's build may have changed after it


class ListingRefused(Exception):
    """The listing is much smaller than the last snapshot's: publishing it would empty part of the site."""


@dataclass
class Rebuild:
    record: RepoRecord
    adapter: Adapter | None  # None: no adapter is sure from the tags; the build takes a closer look (`choose`)
    reason: str  # never-indexed, changed, older-version, partial


@dataclass
class Plan:
    todo: list[Rebuild] = field(default_factory=list)
    current: int = 0  # datasets whose index is up to date
    failed_recently: list[str] = field(default_factory=list)  # left alone: failed at this revision within a day


def refresh_catalog(source: Source, store: Store, cache_dir: Path, settings: AdminSettings | None = None,
                force: bool = False, budget_s: float = 1800, max_builds: int = 100,
                clock: Callable[[], float] = time.time, progress=None, token: str | None = None) -> dict:
    """One indexer run; returns its summary. `token` is used for reading public datasets only (rate limits).

    Raises when the listing, the build or the publication fails (nothing is published then); a refused listing
    is not an error here: the summary says why in `refused`, and nothing is published.
    """
    started, timer = clock(), time.perf_counter()
    settings = settings or AdminSettings()
    for folder in store.atomic_write_folders:  # temp files of writers killed before their rename
        remove_abandoned_temps(folder)
    _start(progress, "listing", message=f"Listing {source.describe()}")
    records = fetch_listing(source, settings=settings)  # anonymous: the catalog is what everyone can see
    counts = public_counts(records)
    refused = None if force else refusal(counts, last_snapshot_counts(store))
    if refused:
        log.warning("indexer.refused %s", refused)
        _fail(progress, refused)
        return {"listing": counts, "refused": refused, "published": None, "rebuilt": [], "failed": [],
                "skipped": {}, "seconds": round(time.perf_counter() - timer, 2)}
    write_listing_file(store.listing_path, records, _iso(started), source.describe())
    _finish(progress, "listing", f"{counts['envs']:,} environments listed")

    state = load_state(store.indexer_state_path)
    plan = plan_rebuilds(records, store, settings, state, started, source)
    early = None
    if plan.todo and last_snapshot_counts(store) is None:
        # Nothing is published yet: show the catalog now, from what is already indexed, then index.
        early = _build_and_publish(records, store, cache_dir, clock, progress)
    outcome = rebuild(plan, source, store, state, clock, deadline=started + budget_s, max_builds=max_builds,
                      progress=progress, token=token)
    state.forget_unlisted({r.id for r in records if r.repo_type == "dataset"})
    save_state(store.indexer_state_path, state)

    if early is None or outcome["rebuilt"]:
        built, published = _build_and_publish(records, store, cache_dir, clock, progress)
    else:
        built, published = early
    summary = {"listing": counts, "refused": None, "counts": built["counts"], "published": published,
               **outcome, "skipped": {"current": plan.current, "failed_recently": plan.failed_recently,
                                      **outcome["skipped"]},
               "seconds": round(time.perf_counter() - timer, 2)}
    log.info("indexer.published db=%s envs=%s tasks=%s rebuilt=%d failed=%d", published["db"],
             built["counts"]["envs"], built["counts"]["tasks"], len(outcome["rebuilt"]), len(outcome["failed"]))
    return summary


def _build_and_publish(records: list[RepoRecord], store: Store, cache_dir: Path, clock, progress) -> tuple:
    """Build the snapshot of `records` with the complete indexes on disk, and publish it."""
    _start(progress, "building", message="Building the snapshot")
    with build_folder(cache_dir) as scratch:  # removed afterwards; what a killed build left, the next one removes
        local = scratch / "catalog.db"
        # The published snapshot's rows of the datasets whose index did not change are copied, not read again.
        previous = copy_published(store, scratch / "previous.db")
        built = build_snapshot(records, CompleteIndexes(store), local, built_at=_iso(clock()), previous=previous,
                               health=catalog_verdicts(store))
        _finish(progress, "building", f"{built['counts']['envs']:,} environments, {built['counts']['tasks']:,} tasks")
        _start(progress, "publishing", message="Publishing the snapshot")
        published = publish(local, store, now=datetime.fromtimestamp(clock(), timezone.utc))
    _finish(progress, "publishing", f"Published {published['db']}")
    return built, published


# -- the listing ------------------------------------------------------------------------------------------------


def public_counts(records: list[RepoRecord]) -> dict:
    """What a snapshot of this listing would count: public, ungated environments, each once."""
    kinds = {env_id_of(r): r.repo_type for r in records if not r.private and not r.gated}
    datasets = sum(1 for kind in kinds.values() if kind == "dataset")
    return {"envs": len(kinds), "datasets": datasets, "spaces": len(kinds) - datasets}


def last_snapshot_counts(store: Store) -> dict | None:
    """The counts the current pointer names, or None when there is no readable pointer."""
    try:
        pointer = read_json(store.snapshots_dir / pointer_name())
    except (OSError, ValueError):
        return None
    counts = pointer.get("counts") if isinstance(pointer, dict) else None
    return counts if isinstance(counts, dict) else None


def refusal(counts: dict, last: dict | None) -> str | None:
    """One sentence saying why this listing must not be published, or None when it may be."""
    for key, label in (("envs", "environments"), ("datasets", "datasets"), ("spaces", "Spaces")):
        before = (last or {}).get(key)
        if isinstance(before, int) and before > 0 and counts[key] < REFUSE_BELOW * before:
            return (f"The listing has {counts[key]:,} {label}, under {REFUSE_BELOW:.0%} of the last snapshot's "
                    f"{before:,}, so nothing was published (use --force to publish it anyway).")
    return None


# -- which indexes to rebuild -----------------------------------------------------------------------------------


def plan_rebuilds(records: list[RepoRecord], store: Store, settings: AdminSettings, state: IndexerState,
                  now: float, source: Source) -> Plan:
    """The public datasets whose index is missing or stale, featured first, then by trending."""
    plan = Plan()
    for record in records:
        if record.repo_type != "dataset" or record.private or record.gated:
            continue  # the snapshot shows neither, so no index is built for them here
        index = _stored_index(store, record.id)
        adapter = adapter_for(record, index)
        if adapter is None:
            if index is None and may_read(record):  # e.g. a rows dataset tagged only rl-environment
                _plan_unless_failed(plan, state, record, None, "never-indexed", now)
            continue
        if record.sha is None and index is not None and not _surely_unchanged(record, index):
            record = _with_revision(source, record)  # one info call: was it touched after the build?
        reason = staleness(record, index, adapter)
        if reason is None:
            plan.current += 1
        else:
            _plan_unless_failed(plan, state, record, adapter, reason, now)
    featured = {env_id: n for n, env_id in enumerate(settings.featured)}
    plan.todo.sort(key=lambda r: (featured.get(r.record.id, len(featured)), -r.record.trending_score, r.record.id))
    return plan


def _plan_unless_failed(plan: Plan, state: IndexerState, record: RepoRecord, adapter: Adapter | None, reason: str,
                        now: float) -> None:
    if state.failed_recently(record.id, record.sha, now):
        plan.failed_recently.append(record.id)
    else:
        plan.todo.append(Rebuild(record, adapter, reason))


def adapter_for(record: RepoRecord, index: Index | None) -> Adapter | None:
    """The adapter that built the stored index, else the one sure of the record without a call (the registry's
    rule: the build picks with a closer look otherwise)."""
    if index is not None and (adapter := get(index.adapter)) is not None:
        return adapter
    return sure_from_record(record)


def staleness(record: RepoRecord, index: Index | None, adapter: Adapter) -> str | None:
    """Why the stored index must be rebuilt, or None when it is current."""
    if index is None:
        return "never-indexed"
    if index.version != adapter.index_version:
        return "older-version"
    if record.sha is not None and index.revision != record.sha:
        return "changed"
    if not index.complete:
        return "partial"
    return None


def _stored_index(store: Store, env_id: str) -> Index | None:
    try:
        return StoredIndexes(store)[env_id]
    except KeyError:
        return None


def _surely_unchanged(record: RepoRecord, index: Index) -> bool:
    """Without a revision in the listing: last modified well before the index was built."""
    modified, built = _epoch(record.last_modified), _epoch(index.built_at)
    return modified is not None and built is not None and modified < built - MODIFIED_MARGIN_S


def _with_revision(source: Source, record: RepoRecord) -> RepoRecord:
    try:
        return source.repo_info("dataset", record.id)
    except SourceError as exc:
        log.warning("indexer.revision_unknown repo=%s reason=%s", record.id, exc)
        return record


# -- rebuilding -------------------------------------------------------------------------------------------------


class OverBudget(Exception):
    """The run's time budget ran out in the middle of a build: the dataset is left for the next run."""


class BudgetWatch:
    """Stands in for a build's progress and stops the build when the run's time budget runs out, so one big
    dataset cannot hold the run (and the publication) past its budget."""

    def __init__(self, clock, deadline: float):
        self.clock, self.deadline = clock, deadline

    def _check(self, *args, **kwargs) -> None:
        if self.clock() >= self.deadline:
            raise OverBudget()

    start = update = finish = _check

    def fail(self, message: str) -> None:
        pass


def _check_health(env, adapter, index) -> None:
    """A new revision's health check, when the server checks every revision (RLX_HEALTH_CHECKS=auto)."""
    from rlx.runs.health_check import after_index

    try:
        after_index(env, adapter, index)
    except Exception:  # outside a worker's app (a script), or Redis gone: the page can still start it
        log.warning("indexer.health_not_started repo=%s", env.id, exc_info=True)


def rebuild(plan: Plan, source: Source, store: Store, state: IndexerState, clock, deadline: float,
            max_builds: int, progress=None, token: str | None = None) -> dict:
    """Build the planned indexes in order until the time or count budget runs out; record each failure."""
    rebuilt, failed, over_budget = [], [], []
    outages = 0
    _start(progress, "indexes", total=min(len(plan.todo), max_builds), message="Rebuilding indexes")
    for position, item in enumerate(plan.todo):
        env_id = item.record.id
        if len(rebuilt) + len(failed) >= max_builds or clock() >= deadline or outages >= OUTAGE_STREAK:
            over_budget = [r.record.id for r in plan.todo[position:]]
            break
        _update(progress, "indexes", len(rebuilt) + len(failed), message=f"{env_id} ({item.reason})")
        try:
            env = Env(item.record, source, store, token)
            adapter = item.adapter or choose(env)
            if adapter is None:
                raise ValueError(f"{env_id} is in no format this explorer reads.")
            index = adapter.build_index(env, BudgetWatch(clock, deadline))
            if not index.complete:
                raise RuntimeError("the build ended with a partial index")
        except BaseTimeoutException:
            raise  # the job's own time limit: stop the run, publish nothing
        except OverBudget:
            log.info("indexer.over_budget repo=%s: stopped part-way, left for the next run", env_id)
            over_budget = [r.record.id for r in plan.todo[position:]]
            break
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            outage = isinstance(exc, Unavailable)  # the source failed, not this repository: retried next run
            state.record_failure(env_id, item.record.sha, clock(), error, outage=outage)
            failed.append({"id": env_id, "revision": item.record.sha, "error": error, "outage": outage})
            outages = outages + 1 if outage else 0
            if outage:
                _say_outage(exc)
            log.warning("indexer.build_failed repo=%s reason=%s outage=%s error=%s", env_id, item.reason, outage,
                        error)
        else:
            StoredIndexes(store).refresh(env_id)
            state.record_success(env_id)
            rebuilt.append(env_id)
            _check_health(env, adapter, index)
            outages = 0
    _finish(progress, "indexes", f"{len(rebuilt):,} rebuilt, {len(failed):,} failed")
    return {"rebuilt": rebuilt, "failed": failed, "skipped": {"over_budget": over_budget}}


class CompleteIndexes(StoredIndexes):
    """The stored indexes a snapshot may show: complete ones only (a partial one is a build that did not end)."""

    def __getitem__(self, env_id: str) -> Index:
        index = super().__getitem__(env_id)
        if not index.complete:
            raise KeyError(env_id)
        return index

    def usable(self, rows) -> bool:
        return rows.complete


# -- helpers ----------------------------------------------------------------------------------------------------


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _epoch(value: str | None) -> float | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp() if value else None
    except ValueError:
        return None


def _start(progress, step: str, total: int | None = None, message: str = "") -> None:
    if progress is not None:
        progress.start(step, total=total, message=message)


def _update(progress, step: str, done: int, message: str | None = None) -> None:
    if progress is not None:
        progress.update(step, done, message=message)


def _finish(progress, step: str, message: str = "") -> None:
    if progress is not None:
        progress.finish(step, message)


def _fail(progress, message: str) -> None:
    if progress is not None:
        progress.fail(message)


def _say_outage(exc: Unavailable) -> None:
    """A first open waiting on the Hub says it is failing as soon as this run knows (rlx/queue/outage.py)."""
    from rlx.queue.outage import note_outage
    from rlx.queue import get_redis

    try:
        note_outage(get_redis(), exc)
    except Exception:  # outside an app (a script): the run's own log says it
        log.debug("no Redis to record the outage in", exc_info=True)
