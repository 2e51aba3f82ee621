"""Row processors: the surest format wins, answers never reach a task, a bad row becomes a message."""

import json

import pytest

from rlx.adapters import public
from rlx.adapters.rows.processors import (
    Processor, RowRef, RowTask, choose_processor, register, render_row, unregister, withhold_answers,
)

SECRET = "ZX-ANSWER-7301"


def _dump(task) -> str:
    return json.dumps(public(task), default=str, ensure_ascii=False)


VERIFIERS = {"prompt": [{"role": "user", "content": "What is 3*5?"}], "answer": SECRET,
             "info": json.dumps({"topic": "arithmetic", "gold": SECRET}), "task": "arith"}
NEMO = {"responses_create_params": {"input": [{"role": "user", "content": "Book a table"}],
                                    "tools": [{"type": "function", "name": "book", "description": "Books it",
                                               "parameters": {"properties": {"time": {}}}}]},
        "agent_ref": {"type": "responses_api_agents", "name": "resto_agent"},
        "verifier_metadata": {"expected_action": SECRET, "grading_mode": "binary"}}
VERL = {"data_source": "openai/gsm8k", "prompt": [{"role": "user", "content": "Tom has 3 bags of 4 apples."}],
        "ability": "math", "reward_model": {"style": "rule", "ground_truth": SECRET},
        "extra_info": {"split": "train", "index": 0, "answer": SECRET}}
SKYRL = {"data_source": "synsql", "prompt": [{"role": "user", "content": "Count the users."}], "env_class": "text2sql",
         "reward_spec": {"method": "rule", "ground_truth": SECRET}, "extra_info": {"sql": SECRET}}
MIMO = {"data_source": "mimo", "prompt": [{"role": "user", "content": "Make the input optional"}],
        "reward_model": {"style": "rule"},
        "extra_info": {"instance_id": "format-code-task-000001", "instance_json": json.dumps({
            "instance_id": "format-code-task-000001", "docker_image": "format-code-task-000001:latest",
            "test_patch": SECRET, "test_command": "pytest -q", "patch": SECRET})}}
MIMO_TERMINAL = {"data_source": "mimo", "prompt": [{"role": "user", "content": "Repair the broken cron job."}],
                 "reward_model": {"style": "rule"},
                 "extra_info": {"instance_id": "tb-cron-repair", "dataset_type": "terminal_bench",
                                "category": "system-administration", "cpus": 2, "allow_internet": False,
                                "agent_timeout_sec": 900, "tests_files": {"tests/test_cron.py": SECRET}}}
GENERIC = {"id": "q-1", "instruction": "Name the capital of France.", "difficulty": "easy", "target": SECRET}


@pytest.mark.parametrize("row, expected", [
    (VERIFIERS, "verifiers"), (NEMO, "nemo-gym"), (VERL, "verl"), (SKYRL, "verl"), (MIMO, "mimo"),
    (GENERIC, "generic"),
])
def test_each_format_is_claimed_by_its_processor_and_no_answer_reaches_the_task(row, expected):
    processor, _ = choose_processor(list(row), [row])
    assert processor.key == expected
    task = render_row(processor, row, RowRef("train", 0))
    assert task.error is None
    assert SECRET not in _dump(task)
    assert task.withheld, "the task lists what it withheld"


def test_a_mimo_terminal_task_shows_its_settings_and_withholds_its_tests():
    from rlx.adapters.rows.processors import get_processor

    task = render_row(get_processor("mimo"), MIMO_TERMINAL, RowRef("train", 0, "general"))
    text = _dump(task)
    assert task.facets["domain"] == "General" and task.facets["source"] == "terminal-bench style"
    assert task.facets["category"] == "system-administration" and "Agent timeout (s)" in text
    assert SECRET not in text and any("tests_files" in w.where for w in task.withheld)


def test_skyrl_rows_say_which_environment_grades_them():
    processor, _ = choose_processor(list(SKYRL), [SKYRL])
    task = render_row(processor, SKYRL, RowRef("train", 3))
    assert task.facets["framework"] == "SkyRL"
    assert "text2sql" in _dump(task)


def test_nemo_gym_shows_the_tools_and_the_agent_server():
    processor, _ = choose_processor(list(NEMO), [NEMO])
    text = _dump(render_row(processor, NEMO, RowRef("train", 0)))
    assert "book" in text and "Books it" in text and "time" in text
    assert "resto_agent" in text


@pytest.mark.parametrize("cell", [
    {"meta": {"deep": [{"x": 1, "final_answer": SECRET}]}},
    json.dumps({"meta": {"deep": [{"final_answer": SECRET}]}}),
    str({"meta": {"deep": [{"final_answer": SECRET}]}}),  # Python-literal text, as str(dict) writes it
    [str({"Ground Truth": SECRET})],
])
def test_answers_are_found_at_any_depth_in_nested_values_and_in_text(cell):
    cleaned, withheld = withhold_answers({"prompt": "hi", "info": cell})
    assert SECRET not in json.dumps(cleaned)
    assert withheld and all(w.where.startswith("info") for w in withheld)


def test_python_literal_text_is_parsed_without_running_it(tmp_path):
    marker = tmp_path / "ran"
    cell = "{'answer': __import__('pathlib').Path(%r).touch()}" % str(marker)
    cleaned, _ = withhold_answers({"info": cell})
    assert not marker.exists()
    assert cleaned["info"] == cell  # not a literal: left as text, nothing run


def test_a_cell_without_answers_comes_back_exactly_as_it_was():
    cell = "{'topic': 'algebra', 'level': 2}"
    cleaned, withheld = withhold_answers({"info": cell})
    assert cleaned["info"] == cell and withheld == []


def test_a_row_that_breaks_its_processor_becomes_a_clear_message():
    processor, _ = choose_processor(list(NEMO), [NEMO])
    task = render_row(processor, {"responses_create_params": "not a request"}, RowRef("train", 7))
    assert task.error and "train/7" in task.error
    task = render_row(processor, ["not", "a", "record"], RowRef("train", 8))
    assert task.error and "not a record" in task.error


def test_a_new_processor_registers_through_the_same_door_and_wins_with_a_surer_claim():
    class Marker(Processor):
        key, label = "marker-test", "Marker"
        agent_fields = ("marker",)

        def claim(self, columns, sample):
            return 0.99 if "marker" in columns else 0.0

        def to_task(self, row, ref, withheld):
            return RowTask(title=f"marked {row['marker']}")

    register(Marker())
    try:
        row = {"marker": "m", "prompt": "p", "data_source": "x"}
        processor, score = choose_processor(list(row), [row])
        assert processor.key == "marker-test" and score == 0.99
        task = render_row(processor, row, RowRef("test", 1))
        assert task.title == "marked m"
        # what the processor did not name as the agent's or a label is withheld, by name
        assert {w.where for w in task.withheld} == {"prompt", "data_source"}
    finally:
        unregister("marker-test")


@pytest.mark.parametrize("text, ref", [("train/3", RowRef("train", 3)),
                                       ("default/test/12", RowRef("test", 12, "default"))])
def test_refs_read_and_write_both_shapes(text, ref):
    assert RowRef.parse(text) == ref and str(ref) == text


@pytest.mark.parametrize("text", ["train", "train/-1", "a/b/c/1", "../train/1", "train/x", ""])
def test_refs_that_are_not_rows_are_refused(text):
    assert RowRef.parse(text) is None


def test_a_mimo_row_shows_only_the_environment_the_agent_gets_of_extra_info():
    """extra_info builds MiMo's sandbox: its image and limits are the agent's, any other key is the grader's,
    whatever its name (a scorer's weights, a harness the sandbox gets after the agent stops)."""
    from rlx.adapters.rows.processors import get_processor

    music = {**MIMO_TERMINAL, "extra_info": {"tag": "reel", "bpm": 130, "meter": "4/4", "nvoice_want": 2,
                                            "scoring_weights": SECRET}}
    code = {**MIMO, "extra_info": {**MIMO["extra_info"], "instance_json": json.dumps({
        **json.loads(MIMO["extra_info"]["instance_json"]), "cwd": "/testbed", "post_run_harness": SECRET})}}
    for row, config, where in ((music, "music", "extra_info.scoring_weights"),
                               (code, "code", "extra_info.instance_json.post_run_harness")):
        task = render_row(get_processor("mimo"), row, RowRef("train", 0, config))
        text = _dump(task)
        assert SECRET not in text and where in {w.where for w in task.withheld}
        assert "MiMo builds the sandbox from it" in next(w.why for w in task.withheld if w.where == where)
    assert "/testbed" in _dump(render_row(get_processor("mimo"), code, RowRef("train", 0, "code")))
    assert "130" in _dump(render_row(get_processor("mimo"), music, RowRef("train", 0, "music")))
