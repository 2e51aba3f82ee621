"""A typed prefix of four letters or more is searched as the whole words it begins (rlx/snapshot/task_terms.py):
the visitor gets the same tasks, in the same order, with the same counts, as the prefix itself gives. An hourly
build keeps that list of words true: a new dataset's words are found by their prefixes, and a dataset that left
takes its words with it.

The expected matches are worked out in Python from the rows; the expected best-first order is FTS5's own ranking of
the prefix, asked for in plain SQL."""

import re

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import save_index
from rlx.snapshot import build_snapshot, search_tasks, task_search, task_terms
from rlx.snapshot.refresh import CompleteIndexes
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord
from rlx.store import Store

# Many tasks say "agents", a few "agentic" or "agenda": ranked as a prefix, "agent"* is one phrase (the task saying
# it twice comes first); ranked word by word, the rare "agentic" would outweigh it. "agenu" begins no "agent" word.
DATASETS = {
    "acme/agents": [("Agents agents", "Two agents meet."), ("Agentic planner", "An agentic loop."),
                    ("Agenda", "Keep the agenda."), ("Agenu", "Not an agent word at all."),
                    *((f"Agents {i}", "Agents cooperate.") for i in range(8))],
    "acme/terminal": [("Terminal basics", "Use the terminal."), ("Terminate cleanly", "A task to terminate."),
                      ("Tasks in a terminal", "Taskbar and tasks."), ("Café agenté", "Un agenté, en français.")],
    "acme/misc": [(f"Puzzle {i}", "Sort the numbers." if i % 3 else "An agent sorts the numbers.") for i in range(9)],
}
PREFIXES = ("agen", "agent", "agents", "agenu", "term", "termin", "task", "taskb", "agent task", "agen term",
            "agente", "zzzz")


def _rows(env_id):
    return [TaskRow(ref=f"t{i}", title=title, brief=brief, facets={"category": env_id.split("/")[1],
                                                                    "difficulty": ("easy", "hard")[i % 2]})
            for i, (title, brief) in enumerate(DATASETS[env_id])]


def _index(env_id, rows, revision="r1"):
    return Index(env_id=env_id, adapter="harbor", revision=revision, version=1, built_at="2026-11-30T00:00:00Z",
                 complete=True, rows=rows)


def _records(ids):
    return [RepoRecord(id=env_id, repo_type="dataset", tags=("harbor",), trending_score=float(len(ids) - n))
            for n, env_id in enumerate(ids)]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("terms") / "catalog.db"
    build_snapshot(_records(list(DATASETS)), {env_id: _index(env_id, _rows(env_id)) for env_id in DATASETS}, path)
    connection = open_immutable(path)
    yield connection
    connection.close()


def catalog_order(q):
    """The tasks matching `q`, in catalog order (trending order of the datasets, then their rows' order)."""
    wanted = q.split()
    found = []
    for env_id in DATASETS:
        for row in _rows(env_id):
            words = re.findall(r"\w+", f"{row.title} {row.brief}".lower().replace("é", "e"))
            if all(any(word.startswith(w) for word in words) for w in wanted):
                found.append(f"{env_id}#{row.ref}")
    return found


def prefix_ranked(db, q):
    """FTS5's own best-first order of the prefix search, in plain SQL."""
    match = " ".join(f'"{w}"*' for w in q.split())
    return [f"{env}#{ref}" for env, ref in db.execute(
        "SELECT e.id, t.ref FROM tasks_fts f JOIN tasks t ON t.rowid = f.rowid JOIN envs e ON e.env_key = t.env_key "
        "WHERE tasks_fts MATCH ? ORDER BY f.rank, f.rowid", (match,))]


def listed(answer):
    return [f"{t['env_id']}#{t['ref']}" for t in answer["tasks"]]


@pytest.mark.parametrize("q", PREFIXES)
def test_a_prefix_finds_what_the_prefix_itself_finds_best_first(db, q):
    answer = search_tasks(db, q, size=100)
    assert sorted(listed(answer)) == sorted(catalog_order(q)) and answer["total"] == len(catalog_order(q))
    assert answer["ranked"] and listed(answer) == prefix_ranked(db, q)
    rows = [row for env_id in DATASETS for row in _rows(env_id) if f"{env_id}#{row.ref}" in catalog_order(q)]
    difficulty = {}
    for row in rows:
        difficulty[row.facets["difficulty"]] = difficulty.get(row.facets["difficulty"], 0) + 1
    assert dict(answer["facets"]["difficulty"]) == difficulty


def test_the_scored_part_and_the_rest_of_a_broad_prefix_keep_the_prefix_order(db, monkeypatch):
    """Past RANK_LIMIT the first matches are scored and the rest follow in catalog order; past RANK_BROADEST all
    are in catalog order. Either way, page by page, as for the prefix itself."""
    monkeypatch.setattr(task_search, "RANK_LIMIT", 4)
    first_four = [key for key in prefix_ranked(db, "agent") if key in catalog_order("agent")[:4]]
    expected = first_four + catalog_order("agent")[4:]
    paged = [key for page in range(1, 8) for key in listed(search_tasks(db, "agent", page=page, size=3))]
    assert paged == expected and len(expected) == 15
    monkeypatch.setattr(task_search, "RANK_BROADEST", 5)
    assert listed(search_tasks(db, "agent", size=100)) == catalog_order("agent")


def test_a_prefix_of_more_words_than_are_spelled_out_is_searched_as_a_prefix(db, monkeypatch):
    monkeypatch.setattr(task_terms, "MAX_TERMS", 2)  # "agen" begins agenda, agent, agents, agentic, agente
    assert task_terms.words_beginning(db, "agen") is None
    answer = search_tasks(db, "agen", size=100)
    assert listed(answer) == prefix_ranked(db, "agen") and answer["total"] == len(catalog_order("agen"))


def test_the_list_of_words_holds_every_word_the_tasks_have(db):
    assert task_terms.words_beginning(db, "agen") == ["agenda", "agent", "agente", "agentic", "agents", "agenu"]
    assert task_terms.words_beginning(db, "agent") == ["agent", "agente", "agentic", "agents"]
    assert task_terms.words_beginning(db, "zzzz") == []


# -- hourly builds ------------------------------------------------------------------------------------------------


def _terms(path):
    db = open_immutable(path)
    try:
        return [row[0] for row in db.execute("SELECT term FROM task_terms ORDER BY term")]
    finally:
        db.close()


def test_an_hourly_build_lists_a_new_datasets_words_and_drops_a_gone_ones(tmp_path):
    store = Store(tmp_path / "store")
    for env_id in DATASETS:
        save_index(store, _index(env_id, _rows(env_id)))
    build_snapshot(_records(list(DATASETS)), CompleteIndexes(store), tmp_path / "first.db")
    # An hour later: a new dataset arrives with a word no other task has, and acme/terminal goes private.
    save_index(store, _index("acme/new", [TaskRow(ref="z", title="Zygomorphic flowers", brief="Count petals.")]))
    later = [*_records(["acme/agents", "acme/misc", "acme/new"]),
             RepoRecord(id="acme/terminal", repo_type="dataset", tags=("harbor",), private=True)]
    build_snapshot(later, CompleteIndexes(store), tmp_path / "hourly.db", previous=tmp_path / "first.db")
    build_snapshot(later, CompleteIndexes(store), tmp_path / "cold.db")

    db = open_immutable(tmp_path / "hourly.db")
    try:
        assert listed(search_tasks(db, "zygo")) == ["acme/new#z"]
        assert search_tasks(db, "termin")["total"] == 0 and search_tasks(db, "taskb")["total"] == 0
        assert listed(search_tasks(db, "agente")) == []
    finally:
        db.close()
    assert _terms(tmp_path / "hourly.db") == _terms(tmp_path / "cold.db")
    assert "zygomorphic" in _terms(tmp_path / "hourly.db") and "terminate" not in _terms(tmp_path / "hourly.db")
