"""A large catalog's word indexes are built by a second process while the build writes its rows (env_sets by the
build itself either way): the file that comes out is the same as when the build makes them itself, and a failure
on either side fails the build whole, leaving no file and no process behind."""

import os
import pickle
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest

from rlx.adapters.indexes import save_index
from rlx.snapshot import build_snapshot, search_process, search_tables
from rlx.snapshot.build import SnapshotBuildError
from rlx.snapshot.refresh import CompleteIndexes
from rlx.snapshot.schema import COMPACT_PAGES, FTS
from rlx.store import Store
from tests.snapshot.test_snapshot_incremental import index, record

NAMES = [f"gym-{i}" for i in range(9)]


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "store")
    for i, name in enumerate(NAMES):
        save_index(store, index(f"acme/{name}", f"maze{i} rook puzzle solver", count=1 + i % 4))
    return store


def listing(hour):
    records = [replace(record(name, f"A gym about chess opening {hour}", trending_score=(i * 7 + hour * 3) % 10),
                       tags=("harbor", f"topic{i % 3}"))
               for i, name in enumerate(NAMES)]
    return sorted(records, key=lambda r: (-r.trending_score, r.id))


def every_table(path):
    """Every table's rows, the word indexes' own tables and the environment search's sets among them; not the
    file's page count, which meta records (the two ways fill their pages differently)."""
    db = sqlite3.connect(path)
    try:
        names = [name for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                                "AND name NOT IN ('envs_fts', 'tasks_fts', 'sqlite_stat1')")]
        tables = {name: sorted(db.execute(f"SELECT * FROM {name}").fetchall(), key=repr) for name in names}
        tables["meta"] = [row for row in tables["meta"] if row[0] != COMPACT_PAGES]
        return tables
    finally:
        db.close()


def build(store, out, hour, second_process, monkeypatch, previous=None):
    monkeypatch.setattr(search_process, "SECOND_PROCESS_FROM", 0 if second_process else 10**9)
    return build_snapshot(listing(hour), CompleteIndexes(store), out, built_at="2026-12-01T10:00:00Z",
                          previous=previous)


def checked(path, knights):
    """The word indexes hold exactly their content tables' words, and `knights` tasks have the word 'knight'."""
    db = sqlite3.connect(path)
    try:
        for table in search_tables.FTS_TABLES:
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        assert db.execute("SELECT count(*) FROM tasks_fts WHERE tasks_fts MATCH 'knight'").fetchone()[0] == knights
    finally:
        db.close()


def test_a_second_process_builds_the_same_search_tables_from_nothing(store, tmp_path, monkeypatch):
    for hour in range(2):
        if hour:  # another catalog: a dataset's index changed, the listing moved
            save_index(store, index(f"acme/{NAMES[hour]}", f"knight hour{hour}", count=3, revision=f"r{hour}"))
        here = build(store, tmp_path / f"here-{hour}.db", hour, False, monkeypatch)
        there = build(store, tmp_path / f"there-{hour}.db", hour, True, monkeypatch)
        assert here["search_process"] is None and there["search_process"] is not None
        tables = every_table(tmp_path / f"there-{hour}.db")
        assert tables["tasks_fts_data"] and tables["env_sets"]
        assert tables == every_table(tmp_path / f"here-{hour}.db"), f"hour {hour}"
        checked(tmp_path / f"there-{hour}.db", 3 * hour)
        assert sorted(os.listdir(tmp_path)) == sorted(["store", *(f"{side}-{h}.db" for h in range(hour + 1)
                                                                   for side in ("here", "there"))])


def test_an_hourly_builds_second_process_makes_only_the_environments_words_and_sets_the_same(store, tmp_path,
                                                                                             monkeypatch):
    """An hourly build keeps the task word index; a second process then makes the environments' word index and
    their search sets, exactly as the build makes them in place."""
    build(store, tmp_path / "first.db", 0, True, monkeypatch)
    previous = tmp_path / "first.db"
    for hour in (1, 2):
        save_index(store, index(f"acme/{NAMES[hour]}", f"knight hour{hour}", count=3, revision=f"r{hour}"))
        here = build(store, tmp_path / f"here-{hour}.db", hour, False, monkeypatch, previous=previous)
        there = build(store, tmp_path / f"there-{hour}.db", hour, True, monkeypatch, previous=previous)
        assert here["search_process"] is None and there["search_process"] is not None
        assert there["copied"] == len(NAMES) - 1
        tables = every_table(tmp_path / f"there-{hour}.db")
        assert tables["envs_fts_data"] and tables["env_sets"]
        assert tables == every_table(tmp_path / f"here-{hour}.db"), f"hour {hour}"
        checked(tmp_path / f"there-{hour}.db", 3 * hour)
        previous = tmp_path / f"there-{hour}.db"


def sides(monkeypatch):
    """The second processes started, as they are started."""
    started = []
    real = search_process.SecondProcess.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(search_process.SecondProcess, "__init__", init)
    return started


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_second_process_that_dies_fails_the_build_and_leaves_nothing(store, tmp_path, monkeypatch):
    started = sides(monkeypatch)
    real_add = search_process.SecondProcess.add

    def killed_first(self, *batch):  # the second process is killed (the kernel's OOM killer, say) mid-build
        os.kill(self.process.pid, signal.SIGKILL)
        real_add(self, *batch)

    monkeypatch.setattr(search_process.SecondProcess, "add", killed_first)
    with pytest.raises(SnapshotBuildError, match="search tables"):
        build(store, tmp_path / "out" / "catalog.db", 0, True, monkeypatch)
    assert len(started) == 1 and gone(started[0].process.pid)
    assert os.listdir(tmp_path / "out") == []


def test_a_build_that_fails_ends_its_second_process_and_leaves_nothing(store, tmp_path, monkeypatch):
    started = sides(monkeypatch)

    def kind_of(record, found):
        if record.id == f"acme/{NAMES[5]}":
            raise RuntimeError("a listing record the build cannot read")
        return "gym"

    monkeypatch.setattr(search_process, "SECOND_PROCESS_FROM", 0)
    with pytest.raises(RuntimeError, match="cannot read"):
        build_snapshot(listing(0), CompleteIndexes(store), tmp_path / "out" / "catalog.db", kind_of=kind_of)
    assert len(started) == 1 and gone(started[0].process.pid)
    assert os.listdir(tmp_path / "out") == []


def test_the_second_process_stops_by_itself_when_the_build_goes_away(tmp_path):
    process = subprocess.Popen([sys.executable, "-P", search_tables.__file__], stdin=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    start = pickle.dumps(("start", str(tmp_path / "side.db"), FTS, search_tables.FTS_TABLES, 1, False))
    _, err = process.communicate(start, timeout=60)  # its input ends before "finish"
    assert process.returncode != 0 and b"went away" in err
