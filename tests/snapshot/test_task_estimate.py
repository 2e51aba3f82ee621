"""A task search broader than the exact count's cap says "about" and gives an estimate close to the true count,
from a sample spread over the whole catalog; a narrower one keeps its exact total and says nothing of the kind.

The catalog: twenty datasets of 200 tasks. The five least trending (their tasks come last in catalog order) have
"Gradient" in every title; the other fifteen have "Graph" in one title in ten. The true counts below are worked
out from these rows in Python, not by the search."""

import re

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.snapshot import build_snapshot, search_tasks, task_sample, task_search
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord

DATASETS, TASKS_EACH = 20, 200
DENSE = range(15, 20)  # the datasets whose every task matches "gra"


def _rows(d: int) -> list[TaskRow]:
    rows = []
    for i in range(TASKS_EACH):
        word = "Gradient" if d in DENSE else ("Graph" if i % 10 == 0 else "Sorting")
        rows.append(TaskRow(ref=f"t{i}", title=f"{word} task {d}-{i}", brief="Solve it.",
                            facets={"category": "math" if d in DENSE else "code"}))
    return rows


INDEXES = {f"org/set{d:02}": _rows(d) for d in range(DATASETS)}


def true_matches(prefix: str) -> list[TaskRow]:
    return [row for rows in INDEXES.values() for row in rows
            if any(w.startswith(prefix) for w in re.findall(r"\w+", f"{row.title} {row.brief}".lower()))]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("estimate") / "catalog.db"
    records = [RepoRecord(id=env_id, repo_type="dataset", tags=("harbor",), trending_score=float(DATASETS - d))
               for d, env_id in enumerate(INDEXES)]
    indexes = {env_id: Index(env_id=env_id, adapter="harbor", revision="r", version=1, built_at="", complete=True,
                             rows=rows) for env_id, rows in INDEXES.items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(task_sample, "ONE_IN", 10)  # 400 of the 4,000 tasks, as 1 in 125 draws 4,120 at 10x
        build_snapshot(records, indexes, path)
    connection = open_immutable(path)
    yield connection
    connection.close()


def test_a_search_under_the_cap_has_its_exact_total(db):
    answer = search_tasks(db, "gra")
    assert answer["total"] == len(true_matches("gra")) == 1300 and answer["total_about"] is False


def test_a_search_past_the_cap_estimates_its_total_within_a_fifth_and_says_so(db, monkeypatch):
    monkeypatch.setattr(task_search, "COUNT_CAP", 500)
    answer = search_tasks(db, "gra")
    true = len(true_matches("gra"))
    # 400 sampled tasks of 4,000, 32.5 % matching: one standard error is 7 % of the count, three are 21 %.
    assert answer["total_about"] is True and abs(answer["total"] - true) <= true * 0.2
    assert len(answer["tasks"]) == 24 and not answer["ranked"]  # the first page in catalog order, unscored
    # The facets come from the same sample: three math tasks in four among the matches.
    assert answer["facets_about"] is True
    (first, n_first), (second, n_second) = answer["facets"]["category"]
    assert (first, second) == ("math", "code") and abs(n_first - 1000) <= 200 and abs(n_second - 300) <= 100


def test_a_rare_word_past_no_cap_keeps_its_exact_total_and_best_first_order(db, monkeypatch):
    monkeypatch.setattr(task_search, "COUNT_CAP", 500)
    answer = search_tasks(db, "graph", size=100)
    assert answer["total"] == len(true_matches("graph")) == 300 and answer["total_about"] is False
    assert answer["ranked"] and len({t["ref"] + t["env_id"] for t in answer["tasks"]}) == 100



def test_an_estimated_total_leaves_the_hidden_environments_tasks_out(db, monkeypatch):
    """Hide three of the five datasets whose every task matches "gra": 400 of theirs and the 300 "Graph" tasks are
    left, still past the cap, and the sample's estimate and facets count none of the hidden 600."""
    monkeypatch.setattr(task_search, "COUNT_CAP", 500)
    hidden = [f"org/set{d:02}" for d in list(DENSE)[:3]]
    answer = search_tasks(db, "gra", exclude_ids=hidden)
    true = len([row for row in true_matches("gra") if not any(row in INDEXES[h] for h in hidden)])
    assert true == 700 and answer["total_about"] is True and abs(answer["total"] - true) <= true * 0.2
    assert {t["env_id"] for t in answer["tasks"]}.isdisjoint(hidden)
    counted = dict(answer["facets"]["category"])
    assert abs(counted["math"] - 400) <= 120 and abs(counted["code"] - 300) <= 100


def test_a_search_of_no_words_gives_every_task_exactly_and_the_samples_facets(db, monkeypatch):
    """With no words over the whole catalog, nothing is matched or counted: the total is the number of tasks the
    build stored, and the facets the sample's (about 400 tasks: a facet draw of 300 is enough here)."""
    monkeypatch.setattr(task_search, "TASK_FACET_SAMPLE", 300)
    answer = search_tasks(db, "")
    assert answer["total"] == DATASETS * TASKS_EACH and answer["total_about"] is False
    assert [(t["env_id"], t["ref"]) for t in answer["tasks"]] == [("org/set00", f"t{i}") for i in range(24)]
    counted = dict(answer["facets"]["category"])
    assert answer["facets_about"] is True and abs(counted["math"] - 1000) <= 200 and abs(counted["code"] - 3000) <= 300
    hidden = ["org/set00", "org/set15", "org/set16", "org/set17"]  # one dataset of code, three of math
    answer = search_tasks(db, "", exclude_ids=hidden, page=2)
    assert answer["total"] == (DATASETS - 4) * TASKS_EACH
    assert [(t["env_id"], t["ref"]) for t in answer["tasks"]] == [("org/set01", f"t{i}") for i in range(24, 48)]
    counted = dict(answer["facets"]["category"])
    assert abs(counted["math"] - 400) <= 150 and abs(counted["code"] - 2800) <= 300
