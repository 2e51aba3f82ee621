"""The hourly build: unchanged datasets keep their tasks, task keys and task words from the previous snapshot, each
dataset's rows are read from the rows cache while its index is unchanged, and the catalog is the same as a build
from nothing makes (only the task keys, and so the task listing's catalog order, may differ)."""

import json
import os
import sqlite3

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import save_index
from rlx.snapshot import build_snapshot, row_sources, search_envs, search_tasks, task_keys
from rlx.snapshot.refresh import CompleteIndexes
from rlx.snapshot.publish import copy_published, publish
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord
from rlx.store import Store

# Tables that read the same whatever the task keys (envs without env_key: see contents).
TABLES = {"env_splits": "env_id, config, split", "env_tags": "tag, env_rowid", "facet_totals": "facet, value",
          "env_sources": "env_rowid"}
TASK_FIELDS = "t.ref, t.title, t.brief, t.category, t.difficulty, t.grading, t.runtime, t.runs_here, t.tags"


def record(name, description=None, **fields):
    card = {"pretty_name": name.replace("-", " ").title(), **({"description": description} if description else {})}
    return RepoRecord(id=f"acme/{name}", repo_type="dataset", tags=("harbor",), card=card, **fields)


def index(env_id, words, count=3, revision="r1"):
    rows = [TaskRow(ref=f"task-{i}", title=f"{words} {i}", brief=f"Solve the {words} puzzle number {i}.",
                    facets={"difficulty": "easy", "category": words.split()[0]}) for i in range(count)]
    return Index(env_id=env_id, adapter="harbor", revision=revision, version=1, built_at="2026-11-30T00:00:00Z",
                 complete=True, rows=rows, summary={"splits": [{"config": "default", "split": "train", "rows": count}]})


@pytest.fixture(autouse=True, params=["file copy", "repack"])
def start(request, monkeypatch):
    """Every test both ways an hourly build starts from the previous snapshot (task_keys.start_from_previous): as a
    copy of its file, and with its kept tables repacked (as once the file has grown)."""
    monkeypatch.setattr(task_keys, "REPACK_GROWTH", 1e9 if request.param == "file copy" else -1.0)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "store")
    for name, words in (("sokoban-gym", "sokoban boxes"), ("chess-tasks", "chess endgame"),
                        ("maze-runner", "maze escape")):
        save_index(store, index(f"acme/{name}", words))
    return store


RECORDS = [record("sokoban-gym", trending_score=3.0), record("chess-tasks", trending_score=2.0),
           record("maze-runner", trending_score=1.0)]


def contents(path):
    """The catalog as a visitor sees it: every table, each environment's tasks and facets in their order, without
    the keys a build gives (task keys and env_key may differ between builds of the same catalog)."""
    db = open_immutable(path)
    try:
        found = {table: db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
                 for table, order in TABLES.items()}
        columns = [c[1] for c in db.execute("PRAGMA table_info(envs)") if c[1] != "env_key"]
        found["envs"] = db.execute(f"SELECT rowid, {', '.join(columns)} FROM envs ORDER BY rowid").fetchall()
        found["tasks"] = db.execute(f"SELECT e.id, {TASK_FIELDS} FROM tasks t JOIN envs e ON e.env_key = t.env_key "
                                    "ORDER BY e.id, t.rowid").fetchall()
        # The facet table holds each task's facets under the task's own key.
        found["task_facets"] = db.execute(
            "SELECT e.id, t.ref, f.category, f.difficulty FROM task_facets f JOIN tasks t ON t.rowid = f.rowid "
            "AND t.env_key = f.env_key JOIN envs e ON e.env_key = t.env_key ORDER BY e.id, f.rowid").fetchall()
        found["counts"] = db.execute("SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_facets), "
                                     "(SELECT count(*) FROM tasks_fts_docsize)").fetchone()
        return found
    finally:
        db.close()


def found(result):
    return sorted(t["ref"] + "@" + t["env_id"] for t in result["tasks"])


def answers(path):
    db = open_immutable(path)
    try:
        return {q: (search_envs(db, q=q)["total"], found(search_tasks(db, q)))
                for q in ("sokoban", "ches", "maze escape", "puzzle", "c", "rook")}
    finally:
        db.close()


def test_an_hourly_build_copies_unchanged_datasets_and_equals_a_build_from_nothing(store, tmp_path):
    first = build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    assert first["copied"] == 0
    # An hour later: chess changed, maze went private, a new dataset arrived.
    save_index(store, index("acme/chess-tasks", "chess rook endgame", count=4, revision="r2"))
    save_index(store, index("acme/new-gym", "rook ladder"))
    later = [RECORDS[0], RECORDS[1], record("maze-runner", private=True), record("new-gym")]

    hourly = build_snapshot(later, CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")
    cold = build_snapshot(later, CompleteIndexes(store), tmp_path / "cold.db")

    assert hourly["copied"] == 1  # sokoban only: chess changed, new-gym is new, maze is gone
    assert contents(tmp_path / "hourly.db") == contents(tmp_path / "cold.db")
    assert answers(tmp_path / "hourly.db") == answers(tmp_path / "cold.db")
    assert answers(tmp_path / "hourly.db")["rook"][1] == sorted(
        [f"task-{i}@acme/chess-tasks" for i in range(4)] + [f"task-{i}@acme/new-gym" for i in range(3)])
    assert hourly["counts"] == cold["counts"] and hourly["counts"]["tasks"] == 3 + 4 + 3


def test_an_hour_that_reorders_the_listing_and_changes_a_card_equals_a_build_from_nothing(store, tmp_path):
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    # An hour later: chess changed (its rook now, no endgame), a new dataset arrived, trending reordered the list,
    # and the maze's card says something new (its words are cut again, the others' taken from the last snapshot).
    save_index(store, index("acme/chess-tasks", "chess rook", count=4, revision="r2"))
    save_index(store, index("acme/new-gym", "rook ladder"))
    later = [record("maze-runner", "A minotaur lives here", trending_score=9.0), record("new-gym"), RECORDS[1],
             RECORDS[0]]

    hourly = build_snapshot(later, CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")
    build_snapshot(later, CompleteIndexes(store), tmp_path / "cold.db")

    assert hourly["copied"] == 2  # sokoban and the maze: their tasks in their new places
    assert contents(tmp_path / "hourly.db") == contents(tmp_path / "cold.db")
    assert answers(tmp_path / "hourly.db") == answers(tmp_path / "cold.db")
    db = open_immutable(tmp_path / "hourly.db")
    assert search_tasks(db, "endgame")["total"] == 0 and search_tasks(db, "chess rook")["total"] == 4
    assert [card["id"] for card in search_envs(db, "minotaur")["cards"]] == ["acme/maze-runner"]


def task_keys_of(path, env_id):
    db = open_immutable(path)
    try:
        return [r[0] for r in db.execute("SELECT t.rowid FROM tasks t JOIN envs e ON e.env_key = t.env_key "
                                         "WHERE e.id = ? ORDER BY t.rowid", (env_id,))]
    finally:
        db.close()


def test_unchanged_datasets_keep_their_task_keys_and_the_changed_one_is_listed_first(store, tmp_path):
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    save_index(store, index("acme/chess-tasks", "chess bishop", count=2, revision="r2"))
    later = [record("maze-runner", trending_score=9.0), RECORDS[1], RECORDS[0]]  # trending turned upside down

    build_snapshot(later, CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")

    for unchanged in ("acme/sokoban-gym", "acme/maze-runner"):
        assert task_keys_of(tmp_path / "hourly.db", unchanged) == task_keys_of(tmp_path / "first.db", unchanged)
    db = open_immutable(tmp_path / "hourly.db")
    listing = [t["ref"] + "@" + t["env_id"] for t in search_tasks(db, size=100)["tasks"]]
    # The task listing: the dataset changed this hour first, then the others as the last build from nothing had them.
    assert listing == ["task-0@acme/chess-tasks", "task-1@acme/chess-tasks"] + [
        f"task-{i}@acme/{name}" for name in ("sokoban-gym", "maze-runner") for i in range(3)]


def test_task_keys_spread_over_twice_the_tasks_bring_a_build_from_nothing(store, tmp_path, monkeypatch):
    monkeypatch.setattr(task_keys, "KEY_SLACK", 0)
    previous, kept = None, []
    # Each hour chess or sokoban, by turns, takes a new block below the others and leaves a gap among them: 9 tasks
    # spread over 9, 12, ... 21 keys.
    for hour in range(6):
        changed = "chess-tasks" if hour % 2 else "sokoban-gym"
        save_index(store, index(f"acme/{changed}", f"{changed} hour{hour}", revision=f"r{hour}"))
        built = build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / f"hour-{hour}.db", previous=previous)
        kept.append(built["copied"])
        previous = tmp_path / f"hour-{hour}.db"

    assert kept == [0, 2, 2, 2, 2, 0]  # 21 keys for 9 tasks: the last hour built from nothing
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "fresh.db")
    assert contents(previous) == contents(tmp_path / "fresh.db")
    for name in ("sokoban-gym", "chess-tasks", "maze-runner"):
        assert task_keys_of(previous, f"acme/{name}") == task_keys_of(tmp_path / "fresh.db", f"acme/{name}")


def test_a_dataset_gone_private_leaves_nothing_of_itself_in_the_next_snapshot(store, tmp_path):
    save_index(store, index("acme/maze-runner", "labyrinthine minotaur"))
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    assert b"minotaur" in (tmp_path / "first.db").read_bytes()

    later = [RECORDS[0], RECORDS[1], record("maze-runner", private=True)]
    build_snapshot(later, CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")

    everything = (tmp_path / "hourly.db").read_bytes()
    assert b"minotaur" not in everything and b"maze-runner" not in everything
    assert b"sokoban" in everything


def cached_ids(store):
    db = sqlite3.connect(store.snapshot_rows_path)
    try:
        return sorted(row[0] for row in db.execute("SELECT id FROM datasets"))
    finally:
        db.close()


def test_an_unchanged_index_is_read_from_the_rows_cache_and_a_changed_one_again(store, tmp_path, monkeypatch):
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")  # fills the rows cache
    assert cached_ids(store) == ["acme/chess-tasks", "acme/maze-runner", "acme/sokoban-gym"]
    read = []
    real_read_index = row_sources.read_index
    monkeypatch.setattr(row_sources, "read_index", lambda s, env_id: read.append(env_id) or real_read_index(s, env_id))

    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "second.db")
    assert read == []  # every dataset from the rows cache
    save_index(store, index("acme/chess-tasks", "chess queen gambit", revision="r2"))
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "third.db")

    assert read == ["acme/chess-tasks"]
    assert answers(tmp_path / "third.db")["rook"] == (0, [])
    db = open_immutable(tmp_path / "third.db")
    assert search_tasks(db, "gambit")["total"] == 3


def test_an_index_rewritten_at_once_to_the_same_size_is_noticed(store, tmp_path):
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    path = store.index_path("acme/chess-tasks")
    before = path.stat()
    # Another title of the same length, written within the clock's tick of the last write (forced here): only the
    # file itself is new.
    save_index(store, index("acme/chess-tasks", "chess knights", revision="r2"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size

    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "second.db", previous=tmp_path / "first.db")

    db = open_immutable(tmp_path / "second.db")
    assert search_tasks(db, "knights")["total"] == 3 and search_tasks(db, "endgame")["total"] == 0


def test_a_rows_cache_that_is_damaged_is_derived_again(store, tmp_path):
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    store.snapshot_rows_path.write_bytes(b"not a database at all" * 100)
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "second.db")
    assert contents(tmp_path / "second.db") == contents(tmp_path / "first.db")
    assert cached_ids(store) == ["acme/chess-tasks", "acme/maze-runner", "acme/sokoban-gym"]  # made again


def test_a_previous_snapshot_of_another_schema_or_broken_is_ignored(store, tmp_path):
    cold = build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "cold.db")
    old = tmp_path / "old.db"
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('schema', '2')")
    db.commit()
    db.close()
    (tmp_path / "garbage.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    for previous in (old, tmp_path / "garbage.db", tmp_path / "missing.db"):
        built = build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "again.db", previous=previous)
        assert built["copied"] == 0 and built["counts"] == cold["counts"]
        assert contents(tmp_path / "again.db") == contents(tmp_path / "cold.db")


def test_the_published_snapshot_is_copied_for_the_next_build_only_when_it_matches_its_pointer(store, tmp_path):
    assert copy_published(store, tmp_path / "previous.db") is None  # nothing published yet
    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "first.db")
    published = publish(tmp_path / "first.db", store)

    copy = copy_published(store, tmp_path / "previous.db")
    assert copy is not None and copy.read_bytes() == (tmp_path / "first.db").read_bytes()
    named = store.snapshots_dir / published["db"]
    named.write_bytes(named.read_bytes()[:-1] + b"\x00")  # one byte changed on the store
    assert copy_published(store, tmp_path / "again.db") is None
    assert not (tmp_path / "again.db").exists()
    pointer = json.loads((store.snapshots_dir / published["pointer"]).read_text())
    assert pointer["db"] == published["db"]


def every_answer(path):
    """What a visitor can ask of the catalog, in every order it is shown in: environment pages in each sort, task
    searches (ranked, in catalog order, within one environment), and the unfiltered task listing."""
    db = open_immutable(path)
    try:
        envs = {sort: [c["id"] for c in search_envs(db, sort=sort, size=100)["cards"]]
                for sort in ("trending", "downloads", "likes", "tasks")}
        # Matches in one order or another (ties in rank, and the catalog order, follow the task keys)...
        tasks = {q: search_tasks(db, q, size=100) for q in ("", "puzzle", "rook", "maze", "sol")}
        answers = {q: (found(result), result["total"], result["facets"]) for q, result in tasks.items()}
        # ...but one environment's tasks in its index's order.
        for env in ("acme/chess-tasks", "acme/gym-3", "acme/new-4"):
            one_env = search_tasks(db, env=env, size=100)
            answers[env] = ([t["ref"] for t in one_env["tasks"]], one_env["total"], one_env["facets"])
        return envs, answers
    finally:
        db.close()


def test_a_day_of_hourly_builds_stays_equal_to_a_build_from_nothing_and_does_not_grow(store, tmp_path):
    """Each hour the counters move and trending reorders the listing, one index changes, datasets come and go;
    every hourly build (built on the last one) answers exactly as a build from nothing of the same hour."""
    import random

    names = [f"gym-{i}" for i in range(12)]
    for i, name in enumerate(names):
        save_index(store, index(f"acme/{name}", f"maze{i} puzzle solver", count=2 + i % 4))
    previous, sizes = None, []
    for hour in range(8):
        draw = random.Random(hour)
        changed = names[hour % len(names)]
        save_index(store, index(f"acme/{changed}", f"maze rook hour{hour} solved", count=1 + hour % 5,
                                revision=f"r{hour}"))
        if hour % 3 == 1:  # a new dataset arrives
            names.append(f"new-{hour}")
            save_index(store, index(f"acme/new-{hour}", f"rook puzzle newcomer{hour}"))
        listed = [record(name, trending_score=round(draw.uniform(0, 10), 3), likes=draw.randrange(100),
                         downloads=draw.randrange(10_000), private=(name == names[(hour * 5) % len(names)]))
                  for name in names] + [record("chess-tasks", trending_score=draw.uniform(0, 10))]
        listed.sort(key=lambda r: (-r.trending_score, r.id))
        hourly = build_snapshot(listed, CompleteIndexes(store), tmp_path / f"hour-{hour}.db", previous=previous)
        build_snapshot(listed, CompleteIndexes(store), tmp_path / "fresh.db")
        if previous is not None:
            assert hourly["copied"] > 0  # the hour really was built on the last one
        assert contents(tmp_path / f"hour-{hour}.db") == contents(tmp_path / "fresh.db"), f"hour {hour}"
        assert every_answer(tmp_path / f"hour-{hour}.db") == every_answer(tmp_path / "fresh.db"), f"hour {hour}"
        sizes.append(((tmp_path / f"hour-{hour}.db").stat().st_size, (tmp_path / "fresh.db").stat().st_size))
        previous = tmp_path / f"hour-{hour}.db"
    assert all(built <= fresh * 1.05 for built, fresh in sizes), sizes


def test_every_hourly_build_remembers_the_size_of_the_last_build_from_nothing(store, tmp_path):
    """The hourly build repacks its kept tables once the file has grown by task_keys.REPACK_GROWTH over the last
    build from nothing: that size is carried from hour to hour, repacked or not."""
    def meta_and_pages(path):
        db = sqlite3.connect(path)
        try:
            return (dict(db.execute("SELECT key, value FROM meta"))["compact_pages"],
                    db.execute("PRAGMA page_count").fetchone()[0])
        finally:
            db.close()

    build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / "hour-0.db")
    recorded, pages = meta_and_pages(tmp_path / "hour-0.db")
    assert 0 <= pages - int(recorded) <= 1  # counted before the planner's statistics took their page
    for hour in range(1, 4):
        save_index(store, index("acme/chess-tasks", f"chess hour{hour}", revision=f"r{hour}"))
        build_snapshot(RECORDS, CompleteIndexes(store), tmp_path / f"hour-{hour}.db",
                       previous=tmp_path / f"hour-{hour - 1}.db")
        assert meta_and_pages(tmp_path / f"hour-{hour}.db")[0] == recorded, f"hour {hour}"
