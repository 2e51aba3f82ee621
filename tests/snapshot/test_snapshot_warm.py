"""A newly opened snapshot is warmed before it serves: the connection the first request gets has already read the
pages every common request reads (rlx/snapshot/warm.py), and a warm-up that fails holds up nothing."""

from __future__ import annotations

import pytest

from rlx.snapshot import reader as reader_module
from rlx.snapshot import search_envs, search_tasks, warm
from rlx.snapshot.schema import open_immutable
from tests.snapshot.test_snapshot import clock, make_reader, publish_catalog, store, total_envs  # noqa: F401


@pytest.fixture
def traced(monkeypatch):
    """Every statement run on each connection the reader opens, keyed by the connection, in order."""
    statements: dict[int, list[str]] = {}

    def opened(path):
        db = open_immutable(path)
        log = statements.setdefault(id(db), [])
        db.set_trace_callback(log.append)
        return db

    monkeypatch.setattr(reader_module, "open_immutable", opened)
    return statements


def _warm_up_ran(log: list[str]) -> bool:
    """The warm-up's reads, all of them, in this connection's statements (before any other query's)."""
    return all(any(sql in line for line in log) for _, sql in warm.STEPS)


def test_the_connection_that_serves_the_first_request_was_warmed_before_the_swap(store, tmp_path, make_reader,
                                                                                traced, monkeypatch):
    publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()
    warmed_at_swap = []
    swap = reader._swap

    def watching_swap(generation):
        warmed_at_swap.append([_warm_up_ran(traced[id(db)]) for db in generation.idle])
        swap(generation)

    monkeypatch.setattr(reader, "_swap", watching_swap)

    assert reader.check() is True
    with reader.connection() as db:
        before_first_query = list(traced[id(db)])
        assert search_envs(db)["total"] == 3 and search_tasks(db, q="build")["total"] == 6

    assert warmed_at_swap == [[True]]  # one connection kept, warmed before the snapshot became current
    assert _warm_up_ran(before_first_query)
    assert reader.status()["warm_up"] == {"steps": len(warm.STEPS), "of": len(warm.STEPS),
                                          "ms": reader.status()["warm_up"]["ms"], "error": None}

    # A newer snapshot is warmed the same way before it replaces this one.
    publish_catalog(store, tmp_path, generation=1, envs=5)
    assert reader.check() is True
    assert warmed_at_swap[-1] == [True] and total_envs(reader) == 5


@pytest.mark.parametrize("spoil", ["a step that fails", "no time left"])
def test_a_warm_up_that_fails_neither_blocks_the_swap_nor_fails_a_request(spoil, store, tmp_path, make_reader,
                                                                         monkeypatch):
    if spoil == "a step that fails":
        monkeypatch.setattr(warm, "STEPS", (("missing", "SELECT * FROM no_such_table"), *warm.STEPS))
    else:
        monkeypatch.setattr(warm, "BUDGET_S", 0.0)
    publish_catalog(store, tmp_path, generation=0, envs=3)
    reader = make_reader()

    assert reader.check() is True
    assert total_envs(reader) == 3
    status = reader.status()["warm_up"]
    assert status["steps"] < status["of"]
    assert ("no_such_table" in status["error"]) if spoil == "a step that fails" else ("budget" in status["error"])
    with reader.connection() as db:  # the connection it ran on answers as any other
        assert search_tasks(db, q="build")["total"] == 6
