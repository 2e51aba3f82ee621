"""Rows withheld by what the grader holds: each benchmark family's answer fields never reach a task, whatever
their names. The rows are written by us in the documented shapes of each family (columns as their public
repositories ship them: SWE-bench's dataset rows, Inspect's sample JSONL, NeMo Gym's example_multi_step
example.jsonl, BFCL multi-turn, tau-bench tasks, verl/SkyRL parquet rows); no row is copied from them."""

import json

import pytest

from rlx.adapters import public
from rlx.adapters.rows.processors import RowRef, choose_processor, render_row

S = "ZX-SECRET-"

SWE = {"instance_id": "acme__widget-101", "repo": "acme/widget", "base_commit": "a" * 40, "version": "1.2",
       "problem_statement": "Widgets crash when the size is zero.\n\nSteps: call Widget(0).",
       "patch": f"diff --git a/w.py b/w.py\n+{S}PATCH", "test_patch": f"diff --git a/t.py b/t.py\n+{S}TESTPATCH",
       "FAIL_TO_PASS": json.dumps([f"tests/t.py::{S}F2P"]), "PASS_TO_PASS": json.dumps([f"tests/t.py::{S}P2P"]),
       "hints_text": f"maybe check {S}HINT", "created_at": "2024-01-01T00:00:00Z",
       "environment_setup_commit": "b" * 40}
INSPECT = {"id": "s1", "input": [{"role": "user", "content": "Which fish is lowest in mercury?"}],
           "target": f"{S}TARGET salmon", "metadata": {"notes": f"{S}META"}}
NEMO = {"id": 0, "responses_create_params": {"input": [{"role": "user", "content": "How hot is it?"}],
                                             "tools": [{"type": "function", "name": "get_synonym_value"}]},
        "expected_synonyms": [f"{S}SYN"], "expected_synonym_values": [711407], "minefield_label": f"{S}MINE",
        "minefield_label_value": 299123}
BFCL = {"id": "multi_turn_base_0", "question": [[{"role": "user", "content": "Move report.txt into docs."}]],
        "function": [{"name": "mv", "description": "Move a file", "parameters": {"properties": {"path": {}}}}],
        "initial_config": {"GorillaFileSystem": {"root": {f"{S}INITIAL": {}}}},
        "path": [f"{S}PATH.mv"], "ground_truth": [[f"mv(source='{S}GT')"]], "involved_classes": ["GorillaFileSystem"]}
TAU = {"user_id": "mia_li_3668", "instruction": "You want to book a one-way flight from New York to Seattle.",
       "actions": [{"name": "book_reservation", "kwargs": {"flight": f"{S}FLIGHT"}}], "outputs": [f"{S}OUT"]}
VERL_STATE = {"data_source": "travel_booking", "prompt": [{"role": "user", "content": "Book me a hotel in Oslo."}],
              "ability": "tool-use", "reward_model": {"style": "rule", "ground_truth": f"{S}RM"},
              "extra_info": {"split": "train", "index": 4, "final_config": {"booking": f"{S}BOOKING-77"}}}
GENERIC = [{"id": f"q{i}", "question": f"Question number {i}?", "difficulty": ["easy", "hard"][i % 2],
            "explanation": f"Long worked reasoning {i} that leads to {S}EXPLAIN{i} " * 3} for i in range(10)]

CASES = [("swe-bench", SWE, {"patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "hints_text"}),
         ("inspect", INSPECT, {"target", "metadata"}),
         ("nemo-gym", NEMO, {"expected_synonyms", "expected_synonym_values", "minefield_label"}),
         ("tool-calls", BFCL, {"initial_config", "path", "ground_truth"}),
         ("tool-calls", TAU, {"actions", "outputs"}),
         ("verl", VERL_STATE, {"reward_model.ground_truth", "extra_info.final_config"})]


def _dump(task) -> str:
    return json.dumps(public(task), default=str, ensure_ascii=False)


@pytest.mark.parametrize("key, row, withheld", CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_each_family_is_claimed_and_its_grader_fields_are_withheld_by_name(key, row, withheld):
    processor, _ = choose_processor(list(row), [row])
    assert processor.key == key
    task = render_row(processor, row, RowRef("train", 0))
    assert task.error is None
    assert S not in _dump(task) and S not in task.title + task.brief
    assert withheld <= {w.where for w in task.withheld}


def test_swe_bench_shows_the_issue_and_the_repository_at_its_commit():
    processor, _ = choose_processor(list(SWE), [SWE])
    text = _dump(render_row(processor, SWE, RowRef("test", 0)))
    assert "Widgets crash when the size is zero." in text and "acme/widget" in text and "a" * 40 in text


def test_a_generic_table_shows_prompt_ids_and_short_labels_and_withholds_long_free_text():
    processor, _ = choose_processor(list(GENERIC[0]), GENERIC)
    hints = processor.survey(list(GENERIC[0]), GENERIC)
    task = render_row(processor, GENERIC[3], RowRef("train", 3), hints)
    text = _dump(task)
    assert "Question number 3?" in text and "q3" in text and task.facets["difficulty"] == "hard"
    assert S not in text and "explanation" in {w.where for w in task.withheld}


def test_a_value_withheld_once_is_masked_in_the_labels_too():
    row = {**VERL_STATE, "extra_info": {**VERL_STATE["extra_info"], "split": f"{S}RM"}}
    processor, _ = choose_processor(list(row), [row])
    task = render_row(processor, row, RowRef("train", 0))
    assert S not in _dump(task)


def test_no_planted_secret_leaves_through_the_task_page_the_json_api_or_the_dataset_page(tmp_path, redis_url):
    """The exits a visitor reads without MCP: each family's rows as a dataset of their own, served by the app."""
    from rlx import create_app
    from rlx.config import Config
    from tests.conftest import index_now

    families = {"swe": [SWE], "inspect": [INSPECT], "nemo": [NEMO], "bfcl": [BFCL], "tau": [TAU],
                "state": [VERL_STATE], "table": GENERIC}
    for name, rows in families.items():
        repo = tmp_path / "datasets" / "grader" / name
        (repo / "data").mkdir(parents=True)
        (repo / "README.md").write_text(f"---\npretty_name: {name}\n---\n")
        (repo / "data" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    app = create_app(Config.from_env({"STORAGE_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "x", "RLX_SOURCE": str(tmp_path)}))
    client = app.test_client()
    for name in families:
        index_now(app, f"grader/{name}")
        for url in (f"/d/grader/{name}", f"/t/grader/{name}/train/0", f"/api/task/grader/{name}/train/0"):
            response = client.get(url)
            assert response.status_code == 200, url
            assert S not in response.get_data(as_text=True), url
        assert "What the agent gets" in client.get(f"/t/grader/{name}/train/0").get_data(as_text=True), name
