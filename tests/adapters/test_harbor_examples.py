"""Every layout and every kind of task in examples/ indexes right, through the Harbor adapter."""

import pytest

from rlx.adapters import Env, pick
from rlx.sources.folder import FolderSource
from rlx.store import Store
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    source, store = FolderSource(EXAMPLES), Store(tmp_path_factory.mktemp("store"))
    built = {}
    for repo_id in ("rlx-examples/terminal-basics", "rlx-examples/python-bugfix", "rlx-examples/science-puzzles"):
        env = Env(source.repo_info("dataset", repo_id), source, store)
        adapter = pick(env)
        built[repo_id] = (adapter, env, adapter.build_index(env))
    return built


def rows_of(indexes, repo_id):
    return {row.ref: row for row in indexes[repo_id][2].rows}


def view_of(indexes, repo_id, ref):
    adapter, env, index = indexes[repo_id]
    return adapter.task(env, index, ref)


def test_tasks_are_found_in_every_layout(indexes):
    assert set(rows_of(indexes, "rlx-examples/terminal-basics")) == {
        "nginx-log-summary", "fix-backup-script", "csv-sales-rollup", "permissions-audit", "config-rewrite-sed",
        "text-diff-report"}  # tasks/<task>/
    assert set(rows_of(indexes, "rlx-examples/python-bugfix")) == {
        "pagination-off-by-one", "parse-duration", "inventory-service", "svc-config-parser", "fix-lru-cache"}
    assert set(rows_of(indexes, "rlx-examples/science-puzzles")) == {
        "chemistry/molar-mass-table", "chemistry/titration-endpoint", "physics/projectile-drag",
        "statistics/sensor-summary", "statistics/ab-test-significance"}  # tasks/<group>/<task>/
    for adapter, env, index in indexes.values():
        assert adapter.key == "harbor" and index.complete
        assert all(row.error is None for row in index.rows)


def test_named_scores_in_reward_json_are_read_from_the_verifier(indexes):
    row = rows_of(indexes, "rlx-examples/terminal-basics")["text-diff-report"]
    assert row.facets["grading"] == "reward.json"
    grading = view_of(indexes, "rlx-examples/terminal-basics", "text-diff-report").sections[1]
    pairs = dict(grading.blocks[0].data)
    assert pairs["Reward"] == "reward.json: named scores"
    assert set(pairs["Scores"]) >= {"added_removed", "changed", "exact_format"}


def test_a_prebuilt_image_without_dockerfile_runs_in_that_image(indexes):
    row = rows_of(indexes, "rlx-examples/terminal-basics")["permissions-audit"]
    assert row.facets["runtime"] == "image" and row.facets["runs_here"] == "yes"


def test_legacy_fields_are_read_as_harbor_reads_them(indexes):
    row = rows_of(indexes, "rlx-examples/python-bugfix")["pagination-off-by-one"]
    assert row.facets["memory"] == "2 GB" and row.facets["network"] == "no-network"
    view = view_of(indexes, "rlx-examples/python-bugfix", "pagination-off-by-one")
    metadata = next(s for s in view.sections if s.id == "metadata")
    legacy = [b for b in metadata.blocks if b.kind == "note"]
    assert legacy and "memory" in legacy[0].data["text"]


def test_a_multi_step_task_shows_each_steps_instruction(indexes):
    row = rows_of(indexes, "rlx-examples/python-bugfix")["inventory-service"]
    assert row.facets["steps"] == "multi-step"
    task = view_of(indexes, "rlx-examples/python-bugfix", "inventory-service").sections[0]
    steps = next(b for b in task.blocks if b.kind == "steps")
    assert [part["title"] for part in steps.data] == ["Step 1: fix-tests", "Step 2: restock-report"]
    assert all(part["blocks"][0].kind == "prompt" for part in steps.data)  # verbatim, as the agent reads it


def test_a_multi_stage_dockerfile_is_not_replayable_so_the_task_cannot_run_here(indexes):
    row = rows_of(indexes, "rlx-examples/science-puzzles")["statistics/sensor-summary"]
    assert row.facets["runtime"] == "dockerfile" and row.facets["runs_here"] == "no"
    assert row.extra["replayable"] is False


def test_the_overview_counts_facets_and_the_share_runnable(indexes):
    adapter, env, index = indexes["rlx-examples/science-puzzles"]
    summary = adapter.overview(env, index)[0]
    pairs = dict(summary.blocks[0].data)
    assert pairs["Tasks"] == "5"
    assert pairs["Runnable here"].startswith("80%")
    groups = {g["label"]: dict(g["items"]) for g in summary.blocks[1].data}
    assert sum(groups["Difficulty"].values()) == 5


def test_answer_in_metadata_is_withheld_and_listed(indexes):
    view = view_of(indexes, "rlx-examples/science-puzzles", "statistics/ab-test-significance")
    assert any(w.where == "metadata.expected_output" for w in view.withheld)
    text = repr(view)
    assert "p_value=0.0291" not in text


def test_a_malformed_task_toml_lists_that_task_with_its_error(tmp_path):
    repo = tmp_path / "datasets" / "org" / "broken"
    for name, toml in (("good", 'schema_version = "1.4"\n[metadata]\ndifficulty = "easy"\n'),
                       ("bad", "[metadata\ndifficulty = \n")):
        task = repo / "tasks" / name
        (task / "tests").mkdir(parents=True)
        (task / "task.toml").write_text(toml)
        (task / "instruction.md").write_text(f"Do {name}.\n")
        (task / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    (repo / "README.md").write_text("---\ntags: [harbor]\n---\n")
    source, store = FolderSource(tmp_path), Store(tmp_path / "store")
    env = Env(source.repo_info("dataset", "org/broken"), source, store)
    index = pick(env).build_index(env)
    rows = {r.ref: r for r in index.rows}
    assert rows["good"].error is None and rows["good"].facets["difficulty"] == "easy"
    assert rows["bad"].error and "line" in rows["bad"].error
