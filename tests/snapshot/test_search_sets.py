"""A search read from the snapshot's word, kind and tag sets shows what a visitor expects on a small catalog whose
answers are written out by hand below: which environments a word finds (a word's start, never its middle), their
order, the total, each facet's counts, the admin's hidden and pinned environments; and a broad task search whose
facet counts are marked "about"."""

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.snapshot import build_snapshot, search_envs, search_tasks
from rlx.snapshot import task_search
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord


def _dataset(name, heading, text, tags, trending):
    return RepoRecord(id=f"org/{name}", repo_type="dataset", tags=tags, trending_score=trending,
                      card={"pretty_name": heading, "description": text})


def _space(name, heading, text, tags, trending, sdk):
    return RepoRecord(id=f"org/{name}", repo_type="space", tags=tags, trending_score=trending, sdk=sdk,
                      card={"pretty_name": heading, "description": text})


RECORDS = [
    _dataset("reward-gym", "Reward Gym", "An agent is paid in reward points", ("harbor", "agents", "tool-use"), 9.0),
    _dataset("rewrite-lab", "Rewrite Lab", "Agents rewrite code", ("verifiers", "code"), 7.0),
    # "prewarm" and "screwdriver" hold "rew" in the middle of a word: a search for "rew" must not find them.
    _dataset("prewarm", "Prewarm Cache", "Warm caches with a screwdriver", ("harbor",), 8.0),
    _space("agent-arena", "Agent Arena", "Bots compete", ("openenv", "agents"), 6.0, sdk="docker"),
    _space("chat-demo", "Chat Demo", "A chat demo", ("agents",), 10.0, sdk="gradio"),
    _dataset("math-set", "Math Set", "Proofs", ("verifiers", "math"), 3.0),
]
# The Reward Gym's tasks: the first six grade something (three math, then three code), the last four do not.
TASKS = [TaskRow(ref=f"t{i}", title=f"{'Grading' if i < 6 else 'Sorting'} task {i}", brief="A short brief",
                 facets={"category": "math" if i < 3 else "code"}) for i in range(10)]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sets") / "catalog.db"
    index = Index(env_id="org/reward-gym", adapter="harbor", revision="r", version=1, built_at="", complete=True,
                  rows=TASKS)
    build_snapshot(RECORDS, {"org/reward-gym": index}, path)
    connection = open_immutable(path)
    yield connection
    connection.close()


def ids(answer):
    return [card["id"] for card in answer["cards"]]


def test_a_common_word_finds_every_environment_with_a_word_starting_with_it_most_trending_first(db):
    answer = search_envs(db, "agent")
    # "agents" (a tag, a description) and "agent" both begin with "agent"; the Prewarm and Math Set have neither.
    assert ids(answer) == ["space:org/chat-demo", "org/reward-gym", "org/rewrite-lab", "space:org/agent-arena"]
    assert answer["total"] == 4
    assert answer["facets"]["kind"] == [("harbor", 1), ("openenv", 1), ("other", 1), ("verifiers", 1)]
    assert answer["facets"]["tags"] == [("agents", 3), ("code", 1), ("harbor", 1), ("openenv", 1), ("tool-use", 1),
                                        ("verifiers", 1)]


def test_a_prefix_matches_the_start_of_words_only(db):
    answer = search_envs(db, "rew")
    assert ids(answer) == ["org/reward-gym", "org/rewrite-lab"]  # not "prewarm", not "screwdriver"
    assert answer["total"] == 2


def test_a_kind_narrows_the_cards_while_the_kind_facet_still_shows_every_kind(db):
    answer = search_envs(db, "agent", kind="harbor")
    assert ids(answer) == ["org/reward-gym"]
    assert answer["total"] == 1
    assert answer["facets"]["kind"] == [("harbor", 1), ("openenv", 1), ("other", 1), ("verifiers", 1)]
    assert answer["facets"]["tags"] == [("agents", 1), ("harbor", 1), ("tool-use", 1)]


def test_a_tag_filter_alone_counts_kinds_over_the_tagged_environments(db):
    answer = search_envs(db, filters={"tags": ["agents"]})
    assert ids(answer) == ["space:org/chat-demo", "org/reward-gym", "space:org/agent-arena"]
    assert answer["facets"]["kind"] == [("harbor", 1), ("openenv", 1), ("other", 1)]


def test_a_hidden_environment_is_neither_listed_nor_counted(db):
    answer = search_envs(db, "agent", exclude_ids=["space:org/chat-demo"])
    assert ids(answer) == ["org/reward-gym", "org/rewrite-lab", "space:org/agent-arena"]
    assert answer["total"] == 3
    assert answer["facets"]["kind"] == [("harbor", 1), ("openenv", 1), ("verifiers", 1)]
    assert answer["facets"]["tags"][0] == ("agents", 2)


def test_pinned_environments_come_first_and_pages_continue_after_them(db):
    pinned = ["space:org/agent-arena", "org/math-set"]  # the Math Set is pinned but does not match: not shown
    assert ids(search_envs(db, "agent", pinned=pinned)) == [
        "space:org/agent-arena", "space:org/chat-demo", "org/reward-gym", "org/rewrite-lab"]
    assert ids(search_envs(db, "agent", pinned=pinned, page=2, size=2)) == ["org/reward-gym", "org/rewrite-lab"]


def test_a_collection_shows_only_its_environments(db):
    answer = search_envs(db, "", only_ids=["org/prewarm", "org/math-set", "org/no-such"])
    assert ids(answer) == ["org/prewarm", "org/math-set"]
    assert answer["facets"]["kind"] == [("harbor", 1), ("verifiers", 1)]


def test_task_facets_are_exact_for_a_narrow_search(db):
    answer = search_tasks(db, "gra")
    assert answer["total"] == 6
    assert answer["facets"]["category"] == [("code", 3), ("math", 3)]
    assert answer["facets_about"] is False


# The draw is read in a pass of its own, or (for a search this broad) with the count: the same draw either way.
@pytest.mark.parametrize("draw_with_count_from", [1000, 5])
def test_a_broad_task_search_estimates_its_facets_and_says_so(db, monkeypatch, draw_with_count_from):
    monkeypatch.setattr(task_search, "TASK_FACETS_EXACT", 3)
    monkeypatch.setattr(task_search, "TASK_FACET_SAMPLE", 2)
    monkeypatch.setattr(task_search, "TASK_DRAW_WITH_COUNT", draw_with_count_from)
    answer = search_tasks(db, "task")  # all ten tasks: a hashed draw of about 2 is counted (both code) and scaled up
    assert answer["total"] == 10
    assert answer["facets"]["category"] == [("code", 10)]
    assert answer["facets_about"] is True
