"""The rows cache (rlx/snapshot/rows_cache.py) and a build from nothing made from it (rlx/snapshot/task_tables.py):
whatever state the cache is in (stale, damaged, locked by an indexer, failing part-way) the snapshot shows the
tasks of the indexes on disk, exactly as a build from the indexes themselves does."""

import sqlite3

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import save_index
from rlx.snapshot import build_snapshot, rows_cache, search_tasks, task_tables
from rlx.snapshot.dataset_rows import index_fingerprint
from rlx.snapshot.refresh import CompleteIndexes
from rlx.snapshot.row_sources import StoredIndexes
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord
from rlx.store import Store

NAMES = {"sokoban-gym": "sokoban boxes", "chess-tasks": "chess endgame", "maze-runner": "maze escape"}
RECORDS = [RepoRecord(id=f"acme/{name}", repo_type="dataset", tags=("harbor",), card={"pretty_name": name},
                      trending_score=float(score)) for score, name in enumerate(NAMES)]


def index(env_id, words, count=3, revision="r1"):
    rows = [TaskRow(ref=f"task-{i}", title=f"{words} {i}", brief=f"Solve the {words} puzzle number {i}.",
                    facets={"difficulty": "easy", "category": words.split()[0]}) for i in range(count)]
    return Index(env_id=env_id, adapter="harbor", revision=revision, version=1, built_at="2026-11-30T00:00:00Z",
                 complete=True, rows=rows, summary={"splits": [{"config": "default", "split": "train", "rows": count}]})


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "store")
    for name, words in NAMES.items():
        save_index(store, index(f"acme/{name}", words))
    return store


def dump(path):
    """Every table of the file, row for row (the word indexes' own tables too), but which index file each dataset's
    tasks came from (a build from Index objects has no file to name)."""
    db = open_immutable(path)
    try:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                              "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        found = {name: sorted(map(repr, db.execute(f"SELECT * FROM {name}"))) for name in names
                 if not name.endswith("_fts")}
        found["env_sources"] = db.execute("SELECT env_rowid, found_kind FROM env_sources ORDER BY 1").fetchall()
        return found
    finally:
        db.close()


def sources(path):
    db = open_immutable(path)
    try:
        return db.execute("SELECT e.id, s.fingerprint FROM env_sources s JOIN envs e ON e.rowid = s.env_rowid "
                          "ORDER BY e.id").fetchall()
    finally:
        db.close()


def from_indexes(store, path):
    """The same build with each index given as an object: no cache involved."""
    build_snapshot(RECORDS, {f"acme/{name}": index(f"acme/{name}", words) for name, words in NAMES.items()}, path,
                   built_at="2026-11-30T00:00:00Z")
    return dump(path)


def build(store, path):
    return build_snapshot(RECORDS, CompleteIndexes(store), path, built_at="2026-11-30T00:00:00Z")


def titles(path, word):
    db = open_immutable(path)
    try:
        return sorted(task["title"] for task in search_tasks(db, word)["tasks"])
    finally:
        db.close()


def test_a_build_from_the_cache_is_the_build_from_the_indexes_table_for_table(store, tmp_path):
    build(store, tmp_path / "fills.db")
    built = build(store, tmp_path / "cached.db")
    assert built["task_tables"] is not None  # its tasks came from the cache
    assert dump(tmp_path / "cached.db") == from_indexes(store, tmp_path / "objects.db")
    # Each dataset names the index file its tasks came from, so the next hourly build knows what is unchanged.
    assert sources(tmp_path / "cached.db") == [(env_id, index_fingerprint(store.index_path(env_id)))
                                               for env_id in sorted(f"acme/{name}" for name in NAMES)]
    assert not list(tmp_path.glob("*.tasks"))  # the side file is gone



def test_a_dataset_without_tasks_between_others_is_built_from_the_cache_too(store, tmp_path):
    # An index with no tasks (a dataset still empty, every row unsearched) sits between two that have some.
    save_index(store, index("acme/chess-tasks", "chess endgame", count=0))
    build(store, tmp_path / "fills.db")
    built = build(store, tmp_path / "cached.db")
    assert built["task_tables"] is not None  # the cache served, not the fallback that reads each dataset
    assert titles(tmp_path / "cached.db", "maze") == [f"maze escape {i}" for i in range(3)]
    assert titles(tmp_path / "cached.db", "chess") == []

def test_a_stale_cache_entry_never_serves_the_old_tasks(store, tmp_path):
    build(store, tmp_path / "first.db")
    # The index is rewritten without the indexer's refresh: the cache still holds the old rows.
    save_index(store, index("acme/chess-tasks", "chess gambit", revision="r2"))
    build(store, tmp_path / "second.db")
    assert titles(tmp_path / "second.db", "gambit") == ["chess gambit 0", "chess gambit 1", "chess gambit 2"]
    assert titles(tmp_path / "second.db", "endgame") == []


def test_rows_derived_from_an_index_since_replaced_do_not_overwrite_the_newer_entry(store, tmp_path):
    source = StoredIndexes(store)
    old = source.fingerprint("acme/chess-tasks")
    stale_rows = source.derive("acme/chess-tasks", old)  # a slow reader got these from the old index
    save_index(store, index("acme/chess-tasks", "chess gambit", revision="r2"))
    source.refresh("acme/chess-tasks")  # the indexer, after its rebuild
    db = rows_cache.connect(source.cache_path)
    assert not rows_cache.write_rows(db, "acme/chess-tasks", stale_rows, lambda: source.fingerprint("acme/chess-tasks"))
    db.close()
    build(store, tmp_path / "built.db")
    assert titles(tmp_path / "built.db", "gambit") == ["chess gambit 0", "chess gambit 1", "chess gambit 2"]


@pytest.mark.parametrize("damage", ["garbage", "torn"])
def test_a_damaged_cache_file_still_builds_the_right_snapshot_and_is_made_again(store, tmp_path, damage):
    build(store, tmp_path / "first.db")
    path = store.snapshot_rows_path
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not a database" * 700)
    else:  # the header whole, every page after the first two overwritten: found only as the tasks are read
        data[8192:] = b"\xa5" * (len(data) - 8192)
    path.write_bytes(bytes(data))
    build(store, tmp_path / "second.db")
    assert dump(tmp_path / "second.db") == from_indexes(store, tmp_path / "objects.db")
    third = build(store, tmp_path / "third.db")  # the cache was made again, and serves
    assert third["task_tables"] is not None
    assert dump(tmp_path / "third.db") == dump(tmp_path / "second.db")


def test_an_indexer_holding_the_cache_does_not_stop_a_build(store, tmp_path, monkeypatch):
    build(store, tmp_path / "first.db")
    monkeypatch.setattr(rows_cache, "BUSY_MS", 50)
    writer = rows_cache.connect(store.snapshot_rows_path)
    writer.execute("BEGIN IMMEDIATE")  # an indexer in the middle of writing an entry
    try:
        unchanged = build(store, tmp_path / "unchanged.db")  # reads only: WAL readers never wait
        save_index(store, index("acme/chess-tasks", "chess gambit", revision="r2"))
        changed = build(store, tmp_path / "changed.db")  # must write an entry: waits, gives up, reads the index
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert unchanged["task_tables"] is not None
    assert dump(tmp_path / "unchanged.db") == dump(tmp_path / "first.db")
    assert titles(tmp_path / "changed.db", "gambit") == ["chess gambit 0", "chess gambit 1", "chess gambit 2"]


@pytest.mark.parametrize("when", ["at once", "part-way"])
def test_a_task_tables_thread_that_fails_costs_only_time(store, tmp_path, monkeypatch, when):
    build(store, tmp_path / "first.db")

    def broken(self):
        raise sqlite3.DatabaseError("database disk image is malformed")

    if when == "at once":
        monkeypatch.setattr(task_tables.TaskTables, "_build", broken)
    else:  # after the build has taken the cache's entries and begun writing the environments
        monkeypatch.setattr(task_tables, "_COPY", "INSERT INTO tasks SELECT * FROM no_such_table")
    built = build(store, tmp_path / "second.db")
    assert built["task_tables"] is None
    assert dump(tmp_path / "second.db") == from_indexes(store, tmp_path / "objects.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.db", "objects.db", "second.db", "store"]
