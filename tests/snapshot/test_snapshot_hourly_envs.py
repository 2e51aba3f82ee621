"""The hourly build takes each environment whose card is unchanged from the previous snapshot (its row, tags and
search sets, renumbered to the hour's trending order): a card that changed is found by its new words and no longer
by its old ones, an environment that left is found nowhere, and the environment search answers exactly as a build
from nothing of the same hour."""

import random
import sqlite3
from dataclasses import replace

import pytest

from rlx.adapters.indexes import save_index
from rlx.snapshot import build_snapshot, search_envs, task_keys
from rlx.snapshot.refresh import CompleteIndexes
from rlx.snapshot.schema import open_immutable
from rlx.store import Store
from tests.snapshot.test_snapshot_incremental import index, record

NAMES = [f"gym-{i}" for i in range(10)]


@pytest.fixture(autouse=True, params=["file copy", "repack"])
def start(request, monkeypatch):
    """Both ways an hourly build starts from the previous snapshot (as in test_snapshot_incremental.py)."""
    monkeypatch.setattr(task_keys, "REPACK_GROWTH", 1e9 if request.param == "file copy" else -1.0)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "store")
    for i, name in enumerate(NAMES[::2]):  # half the environments are datasets with tasks, half cards alone
        save_index(store, index(f"acme/{name}", f"maze{i} puzzle"))
    return store


def listing(hour, names=NAMES, **cards):
    """The catalog at `hour`: trending reshuffled, counters moved; `cards` maps a name to its (description, tags)."""
    draw = random.Random(hour)
    records = []
    for i, name in enumerate(names):
        description, tags = cards.get(name, (f"A gym about chess opening {i}", ("harbor", f"topic{i % 3}")))
        records.append(replace(record(name, description, trending_score=round(draw.uniform(0, 10), 3),
                                      likes=draw.randrange(100), downloads=draw.randrange(10_000)), tags=tags))
    return sorted(records, key=lambda r: (-r.trending_score, r.id))


def ids(path, **query):
    db = open_immutable(path)
    try:
        found = search_envs(db, size=100, **query)
        return found["total"], [card["id"] for card in found["cards"]]
    finally:
        db.close()


def environment_search(path):
    """What a visitor gets from the environment search: matches in every sort for words, a kind, a tag; the facets;
    and the sets the search reads them from."""
    db = open_immutable(path)
    try:
        asked = [{"q": q} for q in ("", "chess", "open", "minotaur", "gym 3", "topic1", "c")]
        asked += [{"kind": "harbor"}, {"filters": {"tags": "topic2"}}, {"q": "chess", "filters": {"tags": "topic0"}}]
        answers = []
        for query in asked:
            for sort in ("trending", "likes", "downloads", "tasks"):
                found = search_envs(db, sort=sort, size=100, **query)
                answers.append((query, sort, found["total"], [c["id"] for c in found["cards"]], found["facets"]))
        sets = sorted(db.execute("SELECT facet, key, n, members FROM env_sets").fetchall())
        return answers, sets
    finally:
        db.close()


def test_an_environment_whose_card_changed_is_found_by_its_new_words_after_an_hourly_build(store, tmp_path):
    build_snapshot(listing(0), CompleteIndexes(store), tmp_path / "first.db")
    assert ids(tmp_path / "first.db", q="chess opening 4")[1] == ["acme/gym-4"]

    changed = {"gym-4": ("A minotaur guards the labyrinth", ("harbor", "mythology"))}
    build_snapshot(listing(1, **changed), CompleteIndexes(store), tmp_path / "hourly.db",
                   previous=tmp_path / "first.db")

    assert ids(tmp_path / "hourly.db", q="minotaur labyrinth") == (1, ["acme/gym-4"])
    assert ids(tmp_path / "hourly.db", filters={"tags": "mythology"}) == (1, ["acme/gym-4"])
    assert ids(tmp_path / "hourly.db", q="chess opening 4") == (0, [])  # its old words find it no more
    assert ids(tmp_path / "hourly.db", filters={"tags": "topic1"})[0] == 2  # gym-1 and gym-7 still; gym-4 left it
    db = open_immutable(tmp_path / "hourly.db")
    brief = db.execute("SELECT brief, tags FROM envs WHERE id = 'acme/gym-4'").fetchone()
    assert brief == ("A minotaur guards the labyrinth", '["harbor", "mythology"]')


def test_an_environment_that_left_the_catalog_is_found_nowhere_after_an_hourly_build(store, tmp_path):
    unique = {"gym-6": ("Only this one speaks of quasars", ("harbor", "astronomy"))}
    build_snapshot(listing(0, **unique), CompleteIndexes(store), tmp_path / "first.db")
    assert ids(tmp_path / "first.db", q="quasars") == (1, ["acme/gym-6"])

    left = [name for name in NAMES if name != "gym-6"]
    build_snapshot(listing(1, left), CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")

    assert ids(tmp_path / "hourly.db", q="quasars") == (0, [])
    assert ids(tmp_path / "hourly.db", filters={"tags": "astronomy"}) == (0, [])
    total, listed = ids(tmp_path / "hourly.db")
    assert total == len(left) and "acme/gym-6" not in listed
    db = open_immutable(tmp_path / "hourly.db")
    tag_facet = dict(search_envs(db, q="chess")["facets"]["tags"])
    assert "astronomy" not in tag_facet and tag_facet["harbor"] == len(left)


def test_a_day_of_hourly_builds_answers_the_environment_search_as_a_build_from_nothing(store, tmp_path):
    """Each hour trending reorders every environment; cards change, environments leave and arrive."""
    previous, names = None, list(NAMES)
    for hour in range(6):
        cards = {names[hour]: (f"Rewritten at hour {hour}: a minotaur", ("harbor", f"hour{hour}"))}
        if hour == 2:
            names.remove("gym-8")
        if hour == 3:
            names.append("newcomer")
        listed = listing(hour, names, **cards)
        build_snapshot(listed, CompleteIndexes(store), tmp_path / f"hour-{hour}.db", previous=previous)
        build_snapshot(listed, CompleteIndexes(store), tmp_path / "fresh.db")
        assert environment_search(tmp_path / f"hour-{hour}.db") == environment_search(tmp_path / "fresh.db"), hour
        previous = tmp_path / f"hour-{hour}.db"
    db = sqlite3.connect(previous)
    assert db.execute("SELECT count(*) FROM envs").fetchone()[0] == len(names)
