"""The catalog snapshot end to end: built from public data only, published database-first, read through a
pointer that is checked before anything is swapped in, and answering while snapshots change under it."""

import hashlib
import json
import logging
import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest

from rlx.adapters import Env, pick
from rlx.adapters.contract import Index, TaskRow
from rlx.snapshot import (SCHEMA, PublishError, SnapshotReader, SnapshotUnavailable, build_snapshot,
                          in_process_builder, pointer_name, search_envs, search_tasks)
from rlx.snapshot import publish as publish_module
from rlx.snapshot.publish import publish
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord
from rlx.sources.folder import FolderSource
from rlx.store import Store
from tests.conftest import EXAMPLES

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def dataset(name, tags=("harbor",), card=None, **fields):
    card = card or {"pretty_name": name.replace("-", " ").title()}
    return RepoRecord(id=f"acme/{name}", repo_type="dataset", tags=tuple(tags), card=card, **fields)


def task_index(env_id, count, adapter="harbor", **facets):
    rows = [TaskRow(ref=f"task-{i}", title=f"Task {i} of {env_id}", brief="Fix the failing build.",
                    facets={"difficulty": "easy", "category": "build", **facets}) for i in range(count)]
    return Index(env_id=env_id, adapter=adapter, revision="r1", version=1, built_at="2026-11-30T00:00:00Z",
                 complete=True, rows=rows)


def catalog(generation=0, envs=3):
    """A small catalog whose every heading names its generation, so an answer shows which snapshot gave it."""
    records = [dataset(f"gen-{generation}-env-{i}", card={"pretty_name": f"generation {generation}"},
                       trending_score=float(i)) for i in range(envs)]
    indexes = {r.id: task_index(r.id, 2) for r in records}
    return records, indexes


def publish_catalog(store, tmp_path, generation=0, envs=3, now=None):
    local = tmp_path / f"build-{generation}.db"
    build_snapshot(*catalog(generation, envs), local)
    return publish(local, store, now=now or T0 + timedelta(minutes=generation))


class Clock:
    def __init__(self):
        self.now = T0.timestamp()

    def __call__(self):
        return self.now


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def make_reader(store, tmp_path, clock):
    readers = []

    def make(**kwargs):
        reader = SnapshotReader(store, tmp_path / "cache", clock=clock, **kwargs)
        readers.append(reader)
        return reader

    yield make
    for reader in readers:
        reader.close()


def total_envs(reader):
    with reader.connection() as db:
        return search_envs(db)["total"]


def pointer(store):
    return json.loads((store.snapshots_dir / pointer_name()).read_text())


def write_pointer(store, value):
    path = store.snapshots_dir / pointer_name()
    path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())


# -- building ---------------------------------------------------------------------------------------------------


def test_a_built_snapshot_holds_public_environments_only(tmp_path):
    records = [
        dataset("open-tasks", card={"pretty_name": "Open Tasks", "description": "Public terminal tasks.",
                                    "dataset_info": {"note": "CARD-VALUE-9313"}}),
        dataset("private-secret-env", private=True),
        dataset("gated-secret-env", gated=True),
        RepoRecord(id="acme/live-env", repo_type="space", tags=("openenv",), sdk="docker", stage="RUNNING"),
    ]
    index = task_index("acme/open-tasks", 3, owner_note="METADATA-VALUE-7781")
    index.rows[0].extra = {"_dir": "/srv/SERVER-PATH-4411", "withheld": 2}
    indexes = {"acme/open-tasks": index, "acme/private-secret-env": task_index("acme/private-secret-env", 2),
               "acme/gated-secret-env": task_index("acme/gated-secret-env", 2)}

    result = build_snapshot(records, indexes, tmp_path / "catalog.db")

    db = open_immutable(tmp_path / "catalog.db")
    assert db.execute("SELECT id, kind FROM envs ORDER BY id").fetchall() == [
        ("acme/open-tasks", "harbor"), ("space:acme/live-env", "openenv")]
    assert db.execute("SELECT DISTINCT e.id FROM tasks t JOIN envs e ON e.env_key = t.env_key").fetchall() == [
        ("acme/open-tasks",)]
    assert result["counts"]["envs"] == 2 and result["counts"]["tasks"] == 3
    assert result["counts"]["skipped_private"] == 1 and result["counts"]["skipped_gated"] == 1
    db.close()
    everything = (tmp_path / "catalog.db").read_bytes()
    for secret in (b"private-secret-env", b"gated-secret-env", b"CARD-VALUE-9313", b"METADATA-VALUE-7781",
                   b"SERVER-PATH-4411"):
        assert secret not in everything


def test_a_built_snapshot_checks_itself_and_names_its_schema(tmp_path):
    result = build_snapshot(*catalog(envs=4), tmp_path / "catalog.db")

    db = open_immutable(tmp_path / "catalog.db")
    assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    meta = dict(db.execute("SELECT key, value FROM meta"))
    assert int(meta["schema"]) == SCHEMA and json.loads(meta["counts"])["tasks"] == 8
    fts = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('envs_fts', 'tasks_fts')"))
    assert 'content="envs"' in fts["envs_fts"] and 'content="tasks"' in fts["tasks_fts"]
    assert result["size"] == (tmp_path / "catalog.db").stat().st_size and result["seconds"] >= 0
    assert not list(tmp_path.glob(".*building"))  # the temporary file is gone


def test_an_index_of_rows_does_not_make_a_dataset_harbor(tmp_path):
    records = [dataset("rows-env", tags=("verifiers",)), dataset("folders-env", tags=("verifiers",))]
    indexes = {"acme/rows-env": task_index("acme/rows-env", 2, adapter="rows"),
               "acme/folders-env": task_index("acme/folders-env", 2, adapter="harbor")}
    build_snapshot(records, indexes, tmp_path / "catalog.db")
    db = open_immutable(tmp_path / "catalog.db")
    assert dict(db.execute("SELECT key, kind FROM envs")) == {"acme/rows-env": "verifiers",
                                                              "acme/folders-env": "harbor"}


# -- publishing -------------------------------------------------------------------------------------------------


def test_the_database_is_in_place_and_whole_before_the_pointer_names_it(store, tmp_path, monkeypatch):
    seen_at_pointer_time = []
    real_write_json = publish_module.write_json

    def watching_write_json(path, value, **kwargs):
        named = store.snapshots_dir / value["db"]
        seen_at_pointer_time.append((named.is_file(), hashlib.sha256(named.read_bytes()).hexdigest()))
        real_write_json(path, value, **kwargs)

    monkeypatch.setattr(publish_module, "write_json", watching_write_json)
    result = publish_catalog(store, tmp_path)

    assert seen_at_pointer_time == [(True, result["sha256"])]
    published = pointer(store)
    named = store.snapshots_dir / published["db"]
    assert named.stat().st_size == published["size"]
    assert hashlib.sha256(named.read_bytes()).hexdigest() == published["sha256"]
    assert published["schema"] == SCHEMA and published["counts"]["envs"] == 3


def test_a_copy_that_lands_short_publishes_nothing(store, tmp_path, monkeypatch):
    first = publish_catalog(store, tmp_path, generation=0)

    def short_copy(source, target):
        target.write_bytes(source.read_bytes()[:1000])

    monkeypatch.setattr(publish_module, "copy_atomic", short_copy)
    with pytest.raises(PublishError, match="did not land whole"):
        publish_catalog(store, tmp_path, generation=1)

    assert pointer(store)["db"] == first["db"]
    assert [p.name for p in store.snapshots_dir.glob("catalog-*.db")] == [first["db"]]


def test_publishing_twice_is_safe_and_points_at_the_newest(store, tmp_path):
    local = tmp_path / "catalog.db"
    build_snapshot(*catalog(), local)
    first = publish(local, store, now=T0)
    second = publish(local, store, now=T0)  # the same second: still a new name

    assert first["db"] != second["db"]
    assert pointer(store)["db"] == second["db"]
    assert {p.name for p in store.snapshots_dir.glob("catalog-*.db")} == {first["db"], second["db"]}


def test_pruning_keeps_the_newest_five_and_whatever_a_pointer_names(store, tmp_path):
    local = tmp_path / "catalog.db"
    build_snapshot(*catalog(), local)
    names = [publish(local, store, now=T0 + timedelta(hours=i))["db"] for i in range(3)]
    # An app of an older schema still reads the oldest snapshot through its own pointer.
    (store.snapshots_dir / "LATEST.v0.json").write_text(json.dumps({"db": names[0]}))
    names += [publish(local, store, now=T0 + timedelta(hours=i))["db"] for i in range(3, 8)]

    kept = sorted(p.name for p in store.snapshots_dir.glob("catalog-*.db"))
    assert kept == sorted([names[0], *names[-5:]])
    assert pointer(store)["db"] == names[-1]


# -- reading ----------------------------------------------------------------------------------------------------


def test_the_reader_answers_from_a_local_copy_of_the_published_snapshot(store, tmp_path, make_reader):
    published = publish_catalog(store, tmp_path, envs=4)
    reader = make_reader()

    assert reader.check() is True
    assert total_envs(reader) == 4
    status = reader.status()
    assert status["snapshot"] == published["db"] and status["origin"] == "pointer"
    assert status["last_checked"] == "2026-11-30T12:00:00Z" and status["last_rejection"] is None
    copies = list((tmp_path / "cache" / "snapshots").iterdir())
    assert len(copies) == 1 and copies[0].read_bytes() == (store.snapshots_dir / published["db"]).read_bytes()
    assert reader.check() is False  # the same pointer again: nothing to do


def _flip_bytes(path, at=0.5):
    data = bytearray(path.read_bytes())
    middle = int(len(data) * at)
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    path.write_bytes(bytes(data))


def _damage_inside_keeping_the_checksum(store, tmp_path):
    """A file the pointer's sha256 and size match, but whose pages are damaged: only SQLite's checks catch it."""
    published = publish_catalog(store, tmp_path, generation=1, envs=60)
    path = store.snapshots_dir / published["db"]
    db = sqlite3.connect(path)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'envs'").fetchone()[0]
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start + 8:start + 200] = b"\xee" * 192  # the table's root page: cell pointers now lead nowhere
    path.write_bytes(bytes(data))
    write_pointer(store, {**published, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})


def _truncate(path):
    path.write_bytes(path.read_bytes()[:4096])


def _publish_then(spoil):
    def make_bad(store, tmp_path):
        published = publish_catalog(store, tmp_path, generation=1)
        spoil(store, published)
    return make_bad


BAD_POINTERS = {
    "garbage bytes": lambda store, tmp_path: write_pointer(store, b"\x00\x01\xffnot a pointer"),
    "half a JSON object": lambda store, tmp_path: write_pointer(store, b'{"db": "catalog-1.db", "sha'),
    "a JSON list": lambda store, tmp_path: write_pointer(store, b"[1, 2]"),
    "a path out of the folder": _publish_then(lambda store, p: write_pointer(store, {**p, "db": "../../etc/passwd"})),
    "a path into a subfolder": _publish_then(lambda store, p: write_pointer(store, {**p, "db": "x/catalog-1.db"})),
    "a missing database": _publish_then(lambda store, p: (store.snapshots_dir / p["db"]).unlink()),
    "a truncated database": _publish_then(lambda store, p: _truncate(store.snapshots_dir / p["db"])),
    "a corrupt database": _publish_then(lambda store, p: _flip_bytes(store.snapshots_dir / p["db"])),
    "counts that do not match": _publish_then(
        lambda store, p: write_pointer(store, {**p, "counts": {**p["counts"], "envs": p["counts"]["envs"] + 1}})),
    "another schema": _publish_then(lambda store, p: write_pointer(store, {**p, "schema": SCHEMA + 1})),
    "a file that is not SQLite": _publish_then(lambda store, p: (
        (store.snapshots_dir / p["db"]).write_bytes(b"x" * 8192),
        write_pointer(store, {**p, "sha256": hashlib.sha256(b"x" * 8192).hexdigest(), "size": 8192}))),
    "damaged pages behind a matching checksum": _damage_inside_keeping_the_checksum,
}


# A bad pointer that names no database of the folder leaves the newest good file on disk to serve: generation 1.
NEWEST_FILE_SERVED = {"a path out of the folder", "a path into a subfolder"}


@pytest.mark.parametrize("bad", BAD_POINTERS.values(), ids=BAD_POINTERS.keys())
def test_a_bad_pointer_is_rejected_once_and_the_newest_good_snapshot_on_disk_kept(bad, store, tmp_path, make_reader,
                                                                                   caplog, request):
    current = publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()
    reader.check()

    bad(store, tmp_path)
    with caplog.at_level(logging.INFO, logger="rlx.snapshot"):
        reader.check()
        assert reader.check() is False  # looked at again within ten minutes: no second log line

    rejections = [r for r in caplog.records if "snapshot.rejected" in r.getMessage()]
    assert len(rejections) == 1 and rejections[0].levelno == logging.WARNING
    status = reader.status()
    assert status["last_rejection"]["reason"] and status["pointer_problem"]["reason"]
    if request.node.callspec.id in NEWEST_FILE_SERVED:
        assert status["origin"] == "disk" and status["snapshot"] != current["db"]
    else:
        assert status["snapshot"] == current["db"] and total_envs(reader) == 3
    assert len(list((tmp_path / "cache" / "snapshots").iterdir())) == 1  # no half copy left behind


def test_a_rejected_file_is_not_fetched_again_for_ten_minutes(store, tmp_path, make_reader, clock):
    publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()
    reader.check()
    newer = publish_catalog(store, tmp_path, generation=1, envs=5)
    path = store.snapshots_dir / newer["db"]
    good_bytes = path.read_bytes()
    _flip_bytes(path)
    assert reader.check() is False

    path.write_bytes(good_bytes)  # repaired: a fetch would now succeed, so only the wait explains a refusal
    clock.now += 9 * 60
    assert reader.check() is False and total_envs(reader) == 3
    clock.now += 2 * 60
    assert reader.check() is True and total_envs(reader) == 5


def test_a_query_in_flight_finishes_on_the_snapshot_it_started_on(store, tmp_path, make_reader):
    publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()
    reader.check()
    cache = tmp_path / "cache" / "snapshots"

    with reader.connection() as old_db:
        publish_catalog(store, tmp_path, generation=1, envs=5)
        assert reader.check() is True
        assert search_envs(old_db)["total"] == 3
        with reader.connection() as new_db:
            assert search_envs(new_db)["total"] == 5
        assert len(list(cache.iterdir())) == 2  # the old copy stays while it is read
    assert len(list(cache.iterdir())) == 1  # and goes when its last query ends
    reader.close()
    assert list(cache.iterdir()) == []


def test_readers_keep_answering_while_snapshots_swap_under_them(store, tmp_path, make_reader):
    publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()
    reader.check()
    done = threading.Event()
    progress = threading.Condition()
    answers = {n: 0 for n in range(4)}
    seen_generations, errors = set(), []

    def ask(n):
        try:
            while not done.is_set():
                with reader.connection() as db:
                    page = search_envs(db, size=100)
                    tasks = search_tasks(db, size=100)["total"]
                headings = {card["heading"] for card in page["cards"]}
                generation = page["total"] - 3  # generation g has 3 + g environments, each with 2 tasks
                assert headings == {f"generation {generation}"} and len(page["cards"]) == page["total"]
                assert tasks == 2 * page["total"]
                with progress:
                    seen_generations.add(generation)
                    answers[n] += 1
                    progress.notify_all()
        except Exception as exc:  # reported below: an assertion in a thread would otherwise vanish
            errors.append(exc)
            with progress:
                progress.notify_all()

    def wait_for_everyone_to_answer(after):
        with progress:
            assert progress.wait_for(lambda: errors or all(answers[n] > after[n] for n in answers), timeout=20)

    threads = [threading.Thread(target=ask, args=(n,)) for n in answers]
    for thread in threads:
        thread.start()
    try:
        for generation in range(1, 6):
            wait_for_everyone_to_answer(dict(answers))
            publish_catalog(store, tmp_path, generation=generation, envs=3 + generation)
            assert reader.check() is True
        wait_for_everyone_to_answer(dict(answers))
    finally:
        done.set()
        for thread in threads:
            thread.join()

    assert errors == []
    assert seen_generations == set(range(6))
    reader.close()
    assert list((tmp_path / "cache" / "snapshots").iterdir()) == []  # every retired copy was deleted


def test_with_no_pointer_the_reader_builds_the_catalog_itself(store, tmp_path, make_reader):
    source = FolderSource(EXAMPLES)
    env = Env(source.repo_info("dataset", "rlx-examples/python-bugfix"), source, store)
    pick(env).build_index(env)  # an index on disk, as the indexer job leaves it
    reader = make_reader(fallback=in_process_builder(source, store))

    assert reader.check() is True
    assert reader.status()["origin"] == "fallback"
    with reader.connection() as db:
        found = search_envs(db, "bugfix")
        assert [c["id"] for c in found["cards"]] == ["rlx-examples/python-bugfix"]
        assert found["cards"][0]["kind"] == "harbor" and found["cards"][0]["task_count"] == 5
        assert "fix-lru-cache" in [t["ref"] for t in search_tasks(db, "lru")["tasks"]]

    published = publish_catalog(store, tmp_path, envs=2)
    assert reader.check() is True
    assert reader.status()["snapshot"] == published["db"] and total_envs(reader) == 2


def test_a_garbage_pointer_with_nothing_loaded_falls_back_to_an_in_process_build(store, tmp_path, make_reader):
    store.snapshots_dir.mkdir(parents=True)
    write_pointer(store, b"garbage")
    reader = make_reader(fallback=lambda out: build_snapshot(*catalog(envs=7), out))

    assert reader.check() is True
    assert reader.status()["origin"] == "fallback" and total_envs(reader) == 7
    assert "not JSON" in reader.status()["last_rejection"]["reason"]


def test_a_pointer_mended_after_a_fallback_to_disk_is_followed_again(store, tmp_path, make_reader):
    published = publish_catalog(store, tmp_path, generation=0, envs=4)
    write_pointer(store, b"garbage")
    reader = make_reader(fallback=lambda out: build_snapshot(*catalog(envs=7), out))  # never needed here

    assert reader.check() is True
    assert reader.status()["origin"] == "disk" and "not JSON" in reader.status()["pointer_problem"]["reason"]
    assert total_envs(reader) == 4

    write_pointer(store, published)
    reader.check()
    status = reader.status()
    assert status["origin"] == "pointer" and status["pointer_problem"] is None
    assert status["snapshot"] == published["db"] and total_envs(reader) == 4


def test_with_no_snapshot_and_no_fallback_queries_say_so(store, make_reader):
    reader = make_reader()
    assert reader.check() is False
    with pytest.raises(SnapshotUnavailable):
        with reader.connection():
            pass
    status = reader.status()
    assert status["snapshot"] is None and "LATEST" in status["last_rejection"]["reason"]


def test_copies_left_by_a_dead_process_are_cleaned_up(store, tmp_path, make_reader):
    cache = tmp_path / "cache" / "snapshots"
    cache.mkdir(parents=True)
    (cache / "999999999-3-catalog-old.db").write_bytes(b"left over")
    (cache / ".999999999-4-in-process.db.999999999.building").write_bytes(b"a fallback build killed part-way")
    make_reader()
    assert list(cache.iterdir()) == []


def _resident_bytes_of(path) -> int:
    """How much of `path`, memory-mapped by this process, is resident in it (the Rss of its mappings)."""
    resident, inside = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
                inside = len(fields) >= 6 and fields[5] == str(path)
            elif inside and fields[0] == "Rss:":
                resident += int(fields[1]) * 1024
    return resident


def test_opening_a_snapshot_does_not_load_the_whole_file_into_the_process(store, tmp_path, make_reader):
    # The check of a new snapshot reads every page; a web worker must not keep them all (at 10x the catalog that
    # was the whole 580 MB file in every worker), only what its queries read.
    publish_catalog(store, tmp_path, envs=4000)
    reader = make_reader()
    assert reader.check() is True
    with reader.connection() as db:
        copy = next(p for p in (tmp_path / "cache" / "snapshots").iterdir() if p.suffix == ".db")
        size = copy.stat().st_size
        db.execute("SELECT id FROM envs WHERE rowid = 1").fetchone()  # one query: its pages, not the file
        assert size > 2_000_000
        assert _resident_bytes_of(copy.resolve()) < size / 4
