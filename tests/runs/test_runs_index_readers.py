"""The runs index's reads go through connections kept open between requests (runs_db.reading): a page must still
show every run written since, by any process, and never the runs of a file that is gone."""

from __future__ import annotations

import multiprocessing
import shutil
import threading

from rlx.runs import record, runs_db
from rlx.runs.record import RunRecord
from rlx.store import Store

ENV, REF = "acme/tasks", "t1"


def _run(store: Store, created_at: str) -> str:
    run = RunRecord(id=record.new_run_id(), env_id=ENV, ref=REF, agent="oracle", model=None, visitor=None,
                    visibility="public", status="finished", scored=True, rewards={"reward": 1.0},
                    created_at=created_at, finished_at=created_at)
    runs_db.upsert(store, run)  # its own connection, as the job's process writes
    return run.id


def _shown(store: Store) -> list[str]:
    return [row["id"] for row in runs_db.for_task(store, ENV, REF, None)]


def test_a_run_written_after_a_read_shows_on_the_next_read(tmp_path):
    store = Store(tmp_path / "store")
    first = _run(store, "2026-12-01T00:00:00.000Z")
    assert _shown(store) == [first]
    second = _run(store, "2026-12-01T00:01:00.000Z")
    assert _shown(store) == [second, first]


def test_a_store_made_anew_at_the_same_path_shows_only_its_own_runs(tmp_path):
    store = Store(tmp_path / "store")
    gone = _run(store, "2026-12-01T00:00:00.000Z")
    assert _shown(store) == [gone]
    shutil.rmtree(runs_db.index_path(store).parent)
    fresh = _run(store, "2026-12-01T00:01:00.000Z")
    assert _shown(store) == [fresh]


def test_a_connection_kept_by_one_thread_serves_another(tmp_path):
    """Requests come on many threads (or greenlets): a connection one opened may serve the next, where SQLite's
    default refuses a connection outside the thread that opened it."""
    store = Store(tmp_path / "store")
    only = _run(store, "2026-12-01T00:00:00.000Z")
    assert _shown(store) == [only]
    seen, failed = [], []

    def read():
        try:
            seen.extend(_shown(store))
        except Exception as exc:  # noqa: BLE001 - reported below, with what it was
            failed.append(repr(exc))

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(30)
    assert not failed and seen == [only]


def test_an_index_made_before_the_outcomes_index_gains_it_and_the_board_still_counts(tmp_path):
    import sqlite3
    from contextlib import closing

    from rlx.runs import community

    store = Store(tmp_path / "store")
    _run(store, "2026-12-01T00:00:00.000Z")
    with closing(sqlite3.connect(runs_db.index_path(store), isolation_level=None)) as db:
        db.execute("DROP INDEX runs_ended_public")  # as the server before it left the file
        db.execute("PRAGMA user_version=4")
    board = community.outcomes(store, ENV)
    assert [(row["label"], row["rate"]) for row in board] == [("oracle", 1.0)]
    with closing(runs_db.connect(store)) as db:
        assert db.execute("SELECT 1 FROM sqlite_master WHERE name='runs_ended_public'").fetchone()


def _first_reads_at_once(roots: list, start, opened) -> None:
    """Open each new store's runs index from every worker at once (a barrier), recording each error."""
    for root in roots:
        start.wait()
        try:
            assert _shown(Store(root)) == []
        except Exception as exc:  # noqa: BLE001 - what a visitor would get as a 500
            opened.append(repr(exc))


def test_a_new_store_opened_by_eight_threads_at_once_serves_all_of_them(tmp_path):
    # Four visitors' first page of a new store once had one of them answered "database is locked" (a 500).
    roots, start, errors = [tmp_path / f"store-{n}" for n in range(80)], threading.Barrier(8), []
    threads = [threading.Thread(target=_first_reads_at_once, args=(roots, start, errors)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_new_store_opened_by_six_processes_at_once_serves_all_of_them(tmp_path):
    context = multiprocessing.get_context("fork")  # each a web worker of its own
    roots, start, errors = [tmp_path / f"store-{n}" for n in range(30)], context.Barrier(6), context.Manager().list()
    processes = [context.Process(target=_first_reads_at_once, args=(roots, start, errors)) for _ in range(6)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * 6
    assert list(errors) == []
