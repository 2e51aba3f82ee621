"""Searching the snapshot gives exactly what a plain filter in Python gives over the same environments: every
word a substring, each facet counted over what the other filters leave, pages that cover each match once. What a
visitor types is only ever data."""

import random
import re
import unicodedata
from dataclasses import dataclass

import pytest

from rlx.adapters.contract import Index, TaskRow
from rlx.catalog import kind_of
from rlx.snapshot import QueryError, build_snapshot, search_envs, search_tasks, trending_rank
from rlx.snapshot import env_sets, task_search
from rlx.snapshot.schema import open_immutable
from rlx.sources.base import RepoRecord

PHRASES = ["c++ tools", "日本語 のタスク", "100% pass rate", "snake_case names", 'say "hi" twice', "near(a b) x",
           "title:x marks", "a*b*c", "and or not logic", "drop table envs", "--flag parsing", "Ünïcödé Straße",
           "caret ^start", "{braces} and (parens)", "back\\slash"]
WORDS = ["agent", "reward", "terminal", "grid", "maze", "chess", "python", "rust", "browser", "math", "proof",
         "sokoban", "tool", "web", "near", "an", "or", "not", "x"]
TAGS = ["agents", "math", "code", "games", "web", "tool-use", "science", "license:mit", "region:us"]
ROW_TAGS = ["harbor", "verifiers", "nemo-gym", "verl", "openenv", ""]

INJECTIONS = ['"', 'NEAR(a b)', "a*", "title:x", "AND OR NOT", "'; DROP TABLE envs; --", "\x00", "c++", "日本語",
              "%", "_", "^agent", "search_blob:agent", '"agent', 'agent"', "(", ")", "{braces}", "*", "-", '""',
              "\\", "ünïcödé", "STRASSE", "İ", "\ud800", "a" * 100, "near(a", "agent -reward", "x OR y",
              "NOT agent", "agent*", "age", "ag", "a", "", "   ", "maze grid", "Grid MAZE", "\t", "\u3000日本語"]


@dataclass
class Expected:
    """One environment as a visitor sees it: the reference filter below reads only this."""

    id: str
    kind: str
    text: str
    tags: set
    trending: float
    downloads: int
    likes: int
    created: str | None
    modified: str | None
    task_count: int


def make_catalog(seed=20261130):
    rng = random.Random(seed)
    records, indexes = [], {}
    for i in range(260):
        space = i % 4 == 0
        tags = {*rng.sample(TAGS, rng.randint(0, 4))}
        if space:
            tags.add("openenv" if rng.random() < 0.7 else "rl-environment")
        elif tag := rng.choice(ROW_TAGS):
            tags.add(tag)
        words = rng.sample(WORDS, rng.randint(1, 5))
        if rng.random() < 0.35:
            words.append(rng.choice(PHRASES))
        records.append(RepoRecord(
            id=f"org{i % 17}/env-{i}", repo_type="space" if space else "dataset", tags=tuple(sorted(tags)),
            likes=rng.randint(0, 5), downloads=rng.randint(0, 50), trending_score=rng.choice([0.0, 1.5, 2.0, 7.25]),
            created_at=rng.choice([None, "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"]),
            last_modified=rng.choice([None, "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]),
            card={"pretty_name": f"Env {i} {rng.choice(WORDS)}", "description": " ".join(words)},
            sdk=rng.choice(["docker", "gradio"]) if space else None))
        if not space and rng.random() < 0.5:
            adapter = "harbor" if "harbor" in tags else "rows"
            indexes[records[-1].id] = Index(env_id=records[-1].id, adapter=adapter, revision="r", version=1,
                                            built_at="", complete=True, rows=make_tasks(rng, rng.randint(0, 9)))
    records.append(RepoRecord(id="org1/hidden-agent", repo_type="dataset", tags=("harbor", "agents"), private=True))
    records.append(RepoRecord(id="org1/gated-agent", repo_type="dataset", tags=("harbor", "agents"), gated=True))
    return records, indexes


def make_tasks(rng, count):
    return [TaskRow(ref=f"t{j}", title=f"{rng.choice(WORDS)} {rng.choice(WORDS)} task",
                    brief=" ".join(rng.choice(WORDS + ["grading", "gradient", "café", "binary", "search"])
                                   for _ in range(rng.randint(3, 12))),
                    facets={"category": rng.choice(["build", "math", "web", None]),
                            "difficulty": rng.choice(["easy", "medium", "hard"]),
                            "runs_here": rng.choice(["yes", "no"])})
            for j in range(count)]


def expected_envs(records, indexes):
    expected = []
    for record in records:
        if record.private or record.gated:
            continue
        index = indexes.get(record.id)
        kind = kind_of(record, None if index is None else (index.adapter == "harbor" and bool(index.rows)))
        tags = {t for t in record.tags if ":" not in t}
        text = " ".join([record.pretty_name, record.card.get("description", ""), record.id, *sorted(tags)])
        env_id = record.id if record.repo_type == "dataset" else f"space:{record.id}"
        expected.append(Expected(env_id, kind, text, tags, record.trending_score, record.downloads, record.likes,
                                 record.created_at, record.last_modified, len(index.rows) if index else 0))
    return expected


# -- the reference: plain Python over the same environments ---------------------------------------------------


def word_match(tokens, text):
    """Each search word begins a word of the text; one letter or digit must be a whole word."""
    words = folded_words(text)
    return all(any(w == t if len(t) == 1 else w.startswith(t) for w in words) for t in tokens)


def reference(envs, q="", kind=None, tags=(), leave_out=None):
    tokens = folded_words(q)
    kinds = [kind] if isinstance(kind, str) else list(kind or [])
    return [e for e in envs
            if word_match(tokens, e.text)
            and (leave_out == "kind" or not kinds or e.kind in kinds)
            and (leave_out == "tags" or all(t in e.tags for t in tags))]


SORT_KEYS = {"trending": "trending", "downloads": "downloads", "likes": "likes", "modified": "modified",
             "created": "created", "tasks": "task_count"}


def reference_order(envs, sort="trending"):
    by_id = sorted(envs, key=lambda e: e.id)
    value = SORT_KEYS[sort]
    # Highest first; a missing date counts as lowest; ties keep id order (the sort is stable).
    return [e.id for e in sorted(by_id, key=lambda e: (getattr(e, value) is not None, getattr(e, value) or 0),
                                  reverse=True)]


def counted(values, limit=None):
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    records, indexes = make_catalog()
    path = tmp_path_factory.mktemp("snapshot") / "catalog.db"
    build_snapshot(records, indexes, path)
    db = open_immutable(path)
    yield db, expected_envs(records, indexes), indexes
    db.close()


# -- environments -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", INJECTIONS, ids=[repr(q)[:30] for q in INJECTIONS])
def test_any_search_text_finds_exactly_what_a_word_filter_finds(snapshot, q):
    db, envs, _ = snapshot
    answer = search_envs(db, q, size=100)
    matches = reference(envs, q)
    assert answer["total"] == len(matches)
    assert [c["id"] for c in answer["cards"]] == reference_order(matches)[:100]
    assert db.execute("SELECT count(*) FROM envs").fetchone()[0] == len(envs)  # nothing was dropped


def test_the_catalog_has_matches_for_the_tricky_searches(snapshot):
    """The parity above means little if every tricky search finds nothing: these must find something."""
    _, envs, _ = snapshot
    for q in ("c++", "日本語", "%", "_", "title:x", "near(a", "a*", '"', "ünïcödé", "(", "\\", "agent", "x"):
        assert reference(envs, q), q


def test_no_private_or_gated_environment_is_ever_found(snapshot):
    db, _, _ = snapshot
    for q in ("", "agent", "hidden", "gated"):
        ids = {c["id"] for c in search_envs(db, q, size=100)["cards"]}
        assert not ids & {"org1/hidden-agent", "org1/gated-agent"}


FILTER_CASES = [
    ("", None, ()), ("agent", None, ()), ("", "harbor", ()), ("", None, ("agents",)),
    ("grid", ["openenv", "other"], ()), ("an", "other", ("math",)), ("x", None, ("code", "games")),
    ("maze", "verifiers", ("web",)), ("c++", None, ()), ("", "no-such-kind", ()), ("", None, ("license:mit",)),
]


# Tags are counted from each environment's own rows when there are few, else from the tag sets: both ways here.
@pytest.mark.parametrize("few_envs", [0, 10_000])
@pytest.mark.parametrize("q,kind,tags", FILTER_CASES)
def test_each_facet_is_counted_over_what_the_other_filters_leave(snapshot, q, kind, tags, few_envs, monkeypatch):
    monkeypatch.setattr(env_sets, "FEW_ENVS", few_envs)
    db, envs, _ = snapshot
    answer = search_envs(db, q, kind=kind, filters={"tags": list(tags)}, size=5)
    assert answer["total"] == len(reference(envs, q, kind, tags))
    assert answer["facets"]["kind"] == counted(e.kind for e in reference(envs, q, kind, tags, leave_out="kind"))
    assert answer["facets"]["tags"] == counted((t for e in reference(envs, q, kind, tags, leave_out="tags")
                                                for t in e.tags), limit=30)


@pytest.mark.parametrize("sort", list(SORT_KEYS))
@pytest.mark.parametrize("q,kind", [("", None), ("agent", None), ("a", "harbor"), ("web", None)])
def test_paging_through_results_shows_each_match_exactly_once_in_order(snapshot, sort, q, kind):
    db, envs, _ = snapshot
    seen, page = [], 1
    while cards := search_envs(db, q, kind=kind, sort=sort, page=page, size=7)["cards"]:
        seen += [c["id"] for c in cards]
        page += 1
    assert seen == reference_order(reference(envs, q, kind), sort)


def test_a_card_carries_what_the_page_shows(snapshot):
    db, _, _ = snapshot
    card = search_envs(db, "", sort="tasks", size=1)["cards"][0]
    assert set(card) == {"id", "key", "repo_type", "kind", "heading", "brief", "likes", "downloads", "trending",
                         "created", "modified", "task_count", "tags", "sdk", "stage", "health"}
    assert isinstance(card["tags"], list) and card["task_count"] > 0


@pytest.mark.parametrize("call", [
    lambda db: search_envs(db, sort="trending DESC; DROP TABLE envs"),
    lambda db: search_envs(db, filters={"kind) OR 1=1 --": ["x"]}),
    lambda db: search_envs(db, page=0),
    lambda db: search_envs(db, size=1000),
    lambda db: search_envs(db, page="two"),
    lambda db: search_envs(db, " ".join(["w"] * 17)),
    lambda db: search_tasks(db, " ".join(["w"] * 17)),
], ids=["sort", "filter name", "page 0", "huge page", "page text", "too many words", "too many task words"])
def test_names_outside_the_allow_lists_and_bad_paging_are_refused_with_a_sentence(snapshot, call):
    db, _, _ = snapshot
    with pytest.raises(QueryError) as refused:
        call(db)
    assert str(refused.value).endswith(".")
    assert db.execute("SELECT count(*) FROM envs").fetchone()[0] > 0


# -- tasks ------------------------------------------------------------------------------------------------------


def folded_words(text):
    """Words as the task index splits them: letters and digits, lowercased, accents removed."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", plain)


def reference_tasks(indexes, q, env=None):
    tokens = folded_words(q)
    found = set()
    for env_id, index in indexes.items():
        if env is not None and env_id != env:
            continue
        for row in index.rows:
            if word_match(tokens, f"{row.title} {row.brief}"):
                found.add((env_id, row.ref))
    return found


TASK_SEARCHES = ["gra", "grading", "binary sea", "cafe", "café", "x", "agent maze", "c++", "NEAR(a b)", '"', "a*",
                 "title:x", "'; DROP TABLE tasks; --", "\x00", "日本語", "%", "_", "", "AND OR NOT", "^rust"]


@pytest.mark.parametrize("q", TASK_SEARCHES, ids=[repr(q)[:30] for q in TASK_SEARCHES])
def test_task_search_matches_word_prefixes_and_nothing_else(snapshot, q):
    db, _, indexes = snapshot
    found = set()
    page = 1
    while tasks := search_tasks(db, q, page=page, size=50)["tasks"]:
        found |= {(t["env_id"], t["ref"]) for t in tasks}
        page += 1
    assert found == reference_tasks(indexes, q)
    assert search_tasks(db, q)["total"] == len(found)


def test_task_search_within_one_environment(snapshot):
    db, _, indexes = snapshot
    env = max(indexes, key=lambda e: len(indexes[e].rows))
    answer = search_tasks(db, "t", env=env, size=100)  # one letter is a whole word: "task" is no match
    assert {(t["env_id"], t["ref"]) for t in answer["tasks"]} == reference_tasks(indexes, "t", env) == set()
    answer = search_tasks(db, "task", env=env, size=100)
    assert {(t["env_id"], t["ref"]) for t in answer["tasks"]} == reference_tasks(indexes, "task", env)
    assert answer["total"] == len(indexes[env].rows) > 0
    listed = search_tasks(db, "", env=env, size=100)["tasks"]
    assert [t["ref"] for t in listed] == [row.ref for row in indexes[env].rows]


def test_task_facets_count_every_match(snapshot):
    db, _, indexes = snapshot
    answer = search_tasks(db, "gra")
    matches = reference_tasks(indexes, "gra")
    rows = [row for env_id, index in indexes.items() for row in index.rows if (env_id, row.ref) in matches]
    assert answer["facets"]["difficulty"] == counted(r.facets["difficulty"] for r in rows)
    assert answer["facets"]["category"] == counted(r.facets["category"] for r in rows if r.facets["category"])


def test_the_best_task_match_comes_first(tmp_path):
    record = RepoRecord(id="acme/puzzles", repo_type="dataset", tags=("harbor",))
    rows = [TaskRow(ref="warehouse", title="Warehouse", brief="Plan routes. " * 12 + "Like sokoban, a bit."),
            TaskRow(ref="sokoban", title="Sokoban solver", brief="Push the sokoban boxes onto goals.")]
    index = Index(env_id=record.id, adapter="harbor", revision="r", version=1, built_at="", complete=True, rows=rows)
    build_snapshot([record], {record.id: index}, tmp_path / "catalog.db")
    db = open_immutable(tmp_path / "catalog.db")
    answer = search_tasks(db, "soko")
    assert [t["ref"] for t in answer["tasks"]] == ["sokoban", "warehouse"] and answer["ranked"]
    assert answer["tasks"][0]["runs_here"] is None and answer["tasks"][0]["env_kind"] == "harbor"


def test_a_broad_task_search_ranks_its_first_matches_then_lists_the_rest_in_catalog_order(tmp_path, monkeypatch):
    # Six tasks name "sokoban", in this catalog order; only the first three are scored (RANK_LIMIT 3): the
    # strongest of those (the word in a short title) leads, and the strong match past the limit keeps its place.
    long_text = "Plan the routes of the warehouse robots carefully. " * 4
    rows = [TaskRow(ref="weak", title="Warehouse", brief=long_text + "Like sokoban."),
            TaskRow(ref="middling", title="Crates", brief="Crates like sokoban, and sokoban again. " + long_text),
            TaskRow(ref="strong", title="Sokoban", brief="Sokoban."),
            TaskRow(ref="fourth", title="Boxes", brief=long_text + "Sokoban."),
            TaskRow(ref="also-strong", title="Sokoban", brief="Sokoban sokoban."),
            TaskRow(ref="sixth", title="Goals", brief=long_text + "Sokoban.")]
    record = RepoRecord(id="acme/puzzles", repo_type="dataset", tags=("harbor",))
    index = Index(env_id=record.id, adapter="harbor", revision="r", version=1, built_at="", complete=True, rows=rows)
    build_snapshot([record], {record.id: index}, tmp_path / "catalog.db")
    db = open_immutable(tmp_path / "catalog.db")
    monkeypatch.setattr(task_search, "RANK_LIMIT", 3)
    expected = ["strong", "middling", "weak", "fourth", "also-strong", "sixth"]
    answer = search_tasks(db, "sokoban", size=100)
    assert [t["ref"] for t in answer["tasks"]] == expected and answer["total"] == 6
    assert answer["ranked_matches"] == 3
    paged = [t["ref"] for page in (1, 2, 3) for t in search_tasks(db, "sokoban", page=page, size=2)["tasks"]]
    assert paged == expected  # pages across the scored and unscored parts neither overlap nor skip
    monkeypatch.setattr(task_search, "RANK_BROADEST", 5)  # too broad to rank at all: catalog order
    broad = search_tasks(db, "sokoban", size=100)
    assert [t["ref"] for t in broad["tasks"]] == [row.ref for row in rows] and not broad["ranked"]


# -- trending rank ----------------------------------------------------------------------------------------------


def test_trending_rank_counts_within_the_environments_kind(snapshot):
    db, envs, _ = snapshot
    for env in envs[::23]:
        same_kind = reference_order([e for e in envs if e.kind == env.kind])
        key = env.id.removeprefix("space:")
        assert trending_rank(db, env.id) == {"n": same_kind.index(env.id) + 1, "of": len(same_kind),
                                             "kind": env.kind}
        if env.id.startswith("space:"):
            assert trending_rank(db, key)["n"] == same_kind.index(env.id) + 1
    assert trending_rank(db, "nobody/nothing") is None
