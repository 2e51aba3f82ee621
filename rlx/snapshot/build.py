"""Building the catalog snapshot: one SQLite file on local disk, from the listing and the stored task indexes.

Only what the explorer shows publicly goes in: no private or gated repository, no task metadata beyond the fixed
facet columns, no file texts. The file is written under a temporary name and renamed when whole and checked, so a
reader of `out_path` never sees half a build.
"""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable
from urllib.parse import quote

from rlx.adapters.contract import Index
from rlx.catalog import fetch_listing
from rlx.catalog import kind_of as catalog_kind_of
from rlx.snapshot import task_tables, task_terms
from rlx.snapshot.row_sources import StoredIndexes, rows_source
from rlx.snapshot.dataset_rows import DatasetRows
from rlx.snapshot.env_values import INSERT_ENVS, env_values
from rlx.snapshot.kept_envs import KeptEnvs, previous_envs
from rlx.snapshot.laps import Laps
from rlx.snapshot.renumbered_sets import RenumberedSets
from rlx.snapshot.previous import (attach_previous, hourly_written, previous_pages, previous_sources,
                                    set_compact_pages)
from rlx.snapshot.schema import FTS, INDEXES, PAGE_SIZE, SCHEMA, TABLES, TASK_INDEXES, TOTALS, TRENDING_ROWIDS
from rlx.snapshot.rows_cache import RowsCacheError
from rlx.snapshot.search_process import SearchProcessError, search_builder
from rlx.snapshot.search_tables import EnvSets
from rlx.snapshot.task_keys import FreshTasks, KeptTasks, repack_due, start_from_previous
from rlx.snapshot.task_sample import SAMPLE_TABLES, write_sample
from rlx.sources.base import RepoRecord, Source
from rlx.store import Store


class SnapshotBuildError(Exception):
    """The database came out unusable (quick_check failed) or its search tables could not be built; nothing was
    written at `out_path`."""


def env_id_of(record: RepoRecord) -> str:
    """A dataset is "org/name", a Space "space:org/name": a dataset and a Space may share a name."""
    return record.id if record.repo_type == "dataset" else f"space:{record.id}"


def build_snapshot(
    records: list[RepoRecord],
    indexes: Mapping[str, Index | None],
    out_path: Path,
    kind_of: Callable[[RepoRecord, bool | None], str] = catalog_kind_of,
    built_at: str | None = None,
    previous: Path | None = None,
    health: Mapping[str, dict] | None = None,
) -> dict:
    """Write the snapshot to `out_path`; return its counts, size and timings.

    `indexes` maps an environment id (see env_id_of) to its stored index; it is read one environment at a time,
    so a lazy mapping (StoredIndexes) keeps only one index in memory, and reads each dataset's rows from the rows
    cache instead of its index while the index is unchanged (a build from nothing copies them all from there on a
    thread of its own: rlx/snapshot/task_tables.py). `previous` is a local copy of the last snapshot: the build
    starts from its tasks (rlx/snapshot/task_keys.py), and a dataset whose index has the fingerprint that snapshot
    recorded keeps its tasks there, and nothing of it is read. `health` maps an environment id to its latest
    health check's {"verdict", "counts"} (rlx/runs/health.py catalog_verdicts); the others are not checked.
    """
    started = time.perf_counter()
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    built_at = built_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    source = rows_source(indexes)
    try:
        with _collector_paused():
            try:
                counts, copied, timings, helper = _write_database(tmp, records, source, kind_of, built_at,
                                                                  previous, health or {})
            except RowsCacheError as exc:  # the cache failed part-way: the same build, each dataset read alone
                source.cache_failed(exc.__cause__ if isinstance(exc.__cause__, sqlite3.DatabaseError) else exc)
                tmp.unlink(missing_ok=True)
                counts, copied, timings, helper = _write_database(tmp, records, source, kind_of, built_at,
                                                                  previous, health or {}, use_cache=False)
        os.replace(tmp, out_path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        if isinstance(source, StoredIndexes):
            source.close()
    seconds = round(time.perf_counter() - started, 3)
    return {"schema": SCHEMA, "built_at": built_at, "counts": counts, "size": out_path.stat().st_size,
            "seconds": seconds, "timings": timings.wall, "cpu_timings": timings.cpu, "copied": copied,
            "search_process": helper.get("search_process"), "task_tables": helper.get("task_tables")}


@contextmanager
def _collector_paused():
    """Python's cycle collector off for the build: the build makes next to no reference cycles, but it makes a
    row tuple per environment and task, and each collection walks every object alive (the listing's records among
    them): a seventh of an hourly build's CPU at 7,225 environments, more at ten times that."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _write_database(path: Path, records, source, kind_of, built_at: str, previous: Path | None,
                    health: Mapping[str, dict], use_cache: bool = True) -> tuple[dict, int, Laps, dict]:
    """Write the database at `path`; (counts, datasets whose tasks were kept, timings, helpers: the search tables'
    second process's CPU seconds and peak RSS when one was used, the task tables' thread's CPU seconds when one
    was). A build from nothing of the stored indexes has its task tables made from the rows cache
    (rlx/snapshot/task_tables.py) unless `use_cache` is false."""
    timings = Laps()
    lap = timings.lap
    db = _connect(path)
    search = tables = None
    helpers = {}
    try:
        carried = previous_sources(db, previous)  # attached before the transaction, so it can be let go
        public = _public(records)
        compact = None  # the page count of the last build from nothing in this line (None: this is one)
        written = None  # the tables to count and check: None, the whole file
        if carried is not None:  # the file is started from the previous snapshot's tables by a connection of its own
            pages, compact = previous_pages(db)
            repack = repack_due(pages, compact)
            written = hourly_written(repack)
            db.close()
            lap("setup")
            start_from_previous(str(path), str(Path(previous).resolve()), repack)
            lap("copy_previous")
            db = _connect(path)
            attach_previous(db, previous)
            # A dataset's removed tasks leave no bytes behind in the pages they free.
            db.execute("PRAGMA secure_delete=ON")
        if carried is None and use_cache and isinstance(source, StoredIndexes):
            cached = task_tables.from_cache(path, source, public[0])
            if cached is not None:
                source, tables = cached
                lap("read_rows")
        # With the task tables made on a thread of their own, only the environments' search tables are left, as in
        # an hourly build.
        search = search_builder(path, len(public[0]), fresh=carried is None and tables is None,
                                renumbers_sets=carried is not None)
        db.execute("BEGIN")
        if carried is None:
            for statement in (*TABLES, *FTS):
                db.execute(statement)
        lap("setup")
        counts, copied, sets = _insert_rows(db, public, source, kind_of, carried, timings, search,
                                            task_tables.CopiedTasks() if tables is not None else None)
        timings.restart()  # _insert_rows timed its own parts
        db.executemany("INSERT INTO env_health (env_rowid, verdict, counts) SELECT rowid, ?, ? FROM envs WHERE id = ?",
                       [(h["verdict"], json.dumps(h["counts"], sort_keys=True), env_id) for env_id, h in health.items()])
        for statement in TOTALS:
            db.execute(statement)
        meta = {"schema": str(SCHEMA), "built_at": built_at, "counts": json.dumps(counts, sort_keys=True),
                TRENDING_ROWIDS: "1"}  # _public put the environments in trending order
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        lap("totals")
        if tables is None:  # else once the task tables are copied in
            write_sample(db)
            lap("task_sample")
        for statement in (*INDEXES, *(TASK_INDEXES if carried is None else ())):
            db.execute(statement)
        lap("indexes")
        if sets is not None:
            sets.write(db)
        db.execute("COMMIT")
        lap("env_sets")
        if carried is not None:
            db.execute("DETACH previous")
        if tables is not None:
            # While the thread is still at the tasks (it analyzes and checks them in its own file), the environments'
            # word index is made and this file's own tables checked; the tasks' are copied in after, then the
            # sample drawn from them, and only the sample is left to check.
            helpers["search_process"] = search.finish(db, timings)
            _analyze_and_check(db, timings, tuple(t for t in _stored_tables(db) if t not in task_tables.COPIED))
            helpers["task_tables"] = tables.finish(db, timings)
            db.execute("BEGIN")
            write_sample(db)
            db.execute("COMMIT")
            lap("task_sample")
            checked = SAMPLE_TABLES
        else:
            # While a second process still builds the search tables, the build counts and checks what it wrote
            # itself; once they are copied in, only those tables are (and each reader checks the whole file again as
            # it opens it: rlx/snapshot/local_copy.py). At ten times today's catalog that is 0.8 s of CPU out of the
            # last stretch.
            ahead = search.fed
            if ahead:
                _analyze_and_check(db, timings, written and tuple(t for t in written if t not in search.copied))
            # The word indexes (rlx/snapshot/search_tables.py), last: a second process building them has had the
            # whole build so far to do it.
            helpers["search_process"] = search.finish(db, timings)
            checked = search.copied if ahead else written
        # An hourly build brought the kept list of words up to date with its tasks (task_keys.py); the task tables'
        # thread listed them.
        if carried is None and tables is None:
            db.execute("BEGIN")
            task_terms.write_all(db)
            db.execute("COMMIT")
            lap("task_terms")
            if checked is not None:
                checked = (*checked, "task_terms")
        free, pages = db.execute("PRAGMA freelist_count").fetchone()[0], db.execute("PRAGMA page_count").fetchone()[0]
        # An hourly build's freed pages are taken by its own inserts; compacting it would rewrite the whole file.
        vacuumed = carried is None and free > pages // 100
        if vacuumed:  # rows are written in order into a fresh file: compact unless the merges left gaps
            db.execute("VACUUM")
        checked = checked if not vacuumed else None
        _analyze(db, timings, checked)
        # The page count as published (statistics included), which an hourly build compares its file's with.
        set_compact_pages(db, compact)
        _check(db, timings, checked and (*checked, "meta"))
    except SearchProcessError as exc:
        raise SnapshotBuildError(str(exc)) from None
    finally:
        db.close()
        if search is not None:
            search.close()
        if tables is not None:
            tables.close()
    return counts, copied, timings, helpers


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{quote(str(path))}", uri=True, isolation_level=None)
    # A build that dies is thrown away whole, so a journal and fsyncs would buy nothing.
    db.execute(f"PRAGMA page_size={PAGE_SIZE}")
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-65536")  # 64 MB: the FTS merge and the index sorts stay in memory
    return db


def _stored_tables(db: sqlite3.Connection) -> list[str]:
    """The file's tables that hold rows (an FTS5 table's rows are in its shadow tables)."""
    return [name for name, sql in db.execute("SELECT name, sql FROM main.sqlite_schema WHERE type = 'table'")
            if not name.startswith("sqlite_") and not sql.startswith("CREATE VIRTUAL")]


def _analyze_and_check(db: sqlite3.Connection, laps: Laps, tables: tuple[str, ...] | None = None) -> None:
    """Statistics for the query planner and SQLite's quick_check, of the whole file or of `tables` only."""
    _analyze(db, laps, tables)
    _check(db, laps, tables)


def _analyze(db: sqlite3.Connection, laps: Laps, tables: tuple[str, ...] | None) -> None:
    for target in tables or ("main",):
        db.execute(f"ANALYZE {target}")
    laps.lap("analyze_vacuum")


def _check(db: sqlite3.Connection, laps: Laps, tables: tuple[str, ...] | None) -> None:
    for pragma in ([f"quick_check({table})" for table in dict.fromkeys(tables)] if tables else ["quick_check"]):
        verdict = db.execute(f"PRAGMA {pragma}").fetchone()[0]
        if verdict != "ok":
            raise SnapshotBuildError(f"the new snapshot failed quick_check: {verdict}")
    laps.lap("quick_check")


def _public(records) -> tuple[list[tuple[RepoRecord, str]], dict]:
    """(record, env id) of every public environment, each once, in trending order ("trending DESC, id", the order
    of envs_by_trending), so that their rowids follow it (schema.TRENDING_ROWIDS); and the counts of those left
    out."""
    skipped = {"skipped_private": 0, "skipped_gated": 0}
    public: list[tuple[RepoRecord, str]] = []
    seen: set[str] = set()
    for record in records:
        if record.private or record.gated:
            skipped["skipped_private" if record.private else "skipped_gated"] += 1
            continue
        env_id = env_id_of(record)
        if env_id not in seen:  # a listing merged from several tag queries may repeat a repository
            seen.add(env_id)
            public.append((record, env_id))
    # The trending value as stored (env_values.counters), then the id: Python orders str by code point, as SQLite's
    # BINARY collation orders their UTF-8 bytes.
    public.sort(key=lambda pair: (-float(pair[0].trending_score or 0.0), pair[1]))
    return public, skipped


def _insert_rows(db: sqlite3.Connection, public: tuple[list, dict], source, kind_of, carried: dict | None,
                 timings: Laps, search, tasks=None) -> tuple[dict, int, EnvSets | RenumberedSets | None]:
    """Every public environment and its tasks, in listing order; (counts, datasets whose tasks were kept from
    `previous`, the environment search's sets). Each batch is also sent to `search` when it builds the word indexes
    from the rows sent (search_process.py). `tasks` writes the tasks when another than this build's own does
    (task_tables.CopiedTasks)."""
    public, skipped = public
    counts = {"envs": 0, "tasks": 0, "datasets": 0, "spaces": 0, "indexed": 0, **skipped}
    # A build from nothing makes every row here and inserts them together at the end; an hourly build takes the
    # unchanged ones from the previous snapshot (kept_envs.py).
    envs: list[tuple] = []
    env_tags: list[tuple[str, int]] = []
    kept = KeptEnvs(previous_envs(db)) if carried is not None else None
    if tasks is None:
        tasks = FreshTasks(db) if carried is None else KeptTasks(db, {env_id: before[0] for env_id, before in
                                                                      carried.items()})
    placed = 0  # environments given a rowid so far
    # A batch of environments goes through each phase in turn, so the clocks are read a few times per batch, not
    # per environment (a CPU clock read is a system call, and a 10x catalog has 72,250 environments).
    for batch in _batches(public, source, carried or {}):
        timings.lap("read_rows")
        tags_before = len(env_tags)
        keys = []
        for record, env_id, rows, before in batch:
            kind = kind_of(record, None if rows is None else rows.found_kind)
            task_count = rows.task_count if rows is not None else 0
            placed += 1
            env_rowid = placed
            if kept is not None:
                env_key = kept.add(env_rowid, record, env_id, kind, task_count)
            else:  # a build from nothing: the key is the rowid
                env_key = env_rowid
                values, plain_tags = env_values(record, env_id, kind, task_count)
                envs.append((env_rowid, env_key, *values))
                env_tags.extend((tag, env_rowid) for tag in plain_tags)
            keys.append((env_rowid, env_key))
        timings.lap("env_rows")
        sources = []
        for (record, env_id, rows, before), (env_rowid, env_key) in zip(batch, keys):
            if before is not None:
                tasks.keep(env_id)
            elif rows is not None:
                tasks.write(env_key, env_id, rows)
            if rows is not None:
                found = before[4] if before is not None and before[4] else json.dumps(rows.found_kind)
                sources.append((env_rowid, rows.fingerprint, found))
            counts["envs"] += 1
            counts["datasets" if record.repo_type == "dataset" else "spaces"] += 1
            counts["indexed"] += rows is not None
            counts["tasks"] += rows.task_count if rows is not None else 0
        db.executemany("INSERT INTO env_sources (env_rowid, fingerprint, found_kind) VALUES (?, ?, ?)", sources)
        timings.lap("write_rows")
        if search.fed and kept is None:
            search.add(*_search_rows(batch, envs[-len(batch):], carried is None), env_tags[tags_before:])
            timings.lap("search_feed")
    if kept is None:
        db.executemany(INSERT_ENVS, envs)
        db.executemany("INSERT INTO env_tags (tag, env_rowid) VALUES (?, ?)", env_tags)
    else:
        kept.write(db)
    timings.lap("write_rows")
    if search.fed and kept is not None:  # the second process makes the environments' word index from their rows
        _feed_envs(db, search)
        timings.lap("search_feed")
    tasks.finish()
    timings.lap("tasks")
    if kept is not None:
        return counts, tasks.kept_count, kept.sets
    # The sets are made here, from the rows in memory: a second process, when there is one, has the longer job
    # (tokenizing the tasks' words), and sending it each environment's kind and tags cost pickling besides.
    sets = None if search.makes_sets else EnvSets()
    if sets is not None:
        for env in envs:
            sets.add_env(env[0], env[5], env[-1])
        for tag, env_rowid in env_tags:
            sets.add_tag(tag, env_rowid)
        timings.lap("env_sets")
    return counts, tasks.kept_count, sets


def _feed_envs(db: sqlite3.Connection, search) -> None:
    """Every environment's (rowid, search_blob, kind) as written, to the second process, a batch at a time."""
    cursor = db.execute("SELECT rowid, search_blob, kind FROM envs ORDER BY rowid")
    while rows := cursor.fetchmany(BATCH_ENVS * 8):
        search.add(rows, [], [])


def _search_rows(batch: list[tuple], envs: list[tuple], with_tasks: bool) -> tuple[list, list]:
    """What the second process needs of one batch (search_tables.FedBuild.add): each environment's (rowid,
    search_blob, kind), and `with_tasks`, each dataset's tasks' (title, brief, words), in the order their keys
    were given."""
    texts = [(values[1], values[2], values[9]) for record, env_id, rows, before in batch if rows is not None
             for values in rows.tasks] if with_tasks else []
    return [(env[0], env[-1], env[5]) for env in envs], texts


BATCH_ENVS, BATCH_TASKS = 512, 20_000  # a batch ends at whichever comes first: its rows are held in memory


def _batches(public: list[tuple[RepoRecord, str]], source, carried: dict) -> Iterator[list[tuple]]:
    """(record, env id, its rows or None, its previous snapshot's sources entry when its tasks are kept from there)
    for every public environment, a batch at a time. Kept datasets hold no rows in memory."""
    batch: list[tuple] = []
    held = 0
    for record, env_id in public:
        fingerprint = source.fingerprint(env_id)
        before = carried.get(env_id)
        if fingerprint is not None and before is not None and before[1] == fingerprint:
            rows = DatasetRows(fingerprint, True, before[2], before[3])  # its tasks are kept, not read
        else:
            rows, before = source.dataset_rows(env_id, fingerprint), None
            held += len(rows.tasks) if rows is not None else 0
        batch.append((record, env_id, rows, before))
        if len(batch) >= BATCH_ENVS or held >= BATCH_TASKS:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def in_process_builder(source: Source, store: Store) -> Callable[[Path], dict]:
    """A reader's fallback: build the same database from the source's listing and the indexes on disk."""

    def build(out_path: Path) -> dict:
        from rlx.runs.health import catalog_verdicts  # the runs package reads the store, not the snapshot

        return build_snapshot(fetch_listing(source), StoredIndexes(store), out_path, health=catalog_verdicts(store))

    return build
