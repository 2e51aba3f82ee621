"""Answers across a whole task: nested tasks, files beside task.toml, stated answers, and a value masked once being
masked in every grader file and in the metadata."""

import textwrap

import pytest

from rlx.adapters.harbor.discover import from_listing, nested_tasks
from rlx.adapters.harbor.reader import NESTED_TASK_WHY, read_task
from rlx.adapters.withhold import MASK, mask_grader_script, withheld_file_reason, withhold_task_texts
from rlx.adapters.withhold.file_rules import OTHER_DATA_WHY
from rlx.sources.base import FileEntry


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --- a task inside another task's folder -------------------------------------------------------------------

def test_a_task_inside_another_is_found_and_owns_its_files():
    paths = ["tasks/outer/task.toml", "tasks/outer/tests/test.sh", "tasks/outer/inner/task.toml",
             "tasks/outer/inner/solution/solve.sh", "tasks/outer/inner/tests/expected.txt"]
    entries = [FileEntry(path=p, type="file") for p in paths] + [FileEntry(path="tasks/outer/inner", type="directory")]
    found = from_listing(entries)
    assert found.task_dirs == ["tasks/outer", "tasks/outer/inner"]
    assert sorted(e.path for e in found.files["tasks/outer"]) == ["inner", "task.toml", "tests/test.sh"]
    assert sorted(e.path for e in found.files["tasks/outer/inner"]) == [
        "solution/solve.sh", "task.toml", "tests/expected.txt"]
    assert nested_tasks(found.task_dirs) == {"tasks/outer": {"inner": "tasks/outer/inner"}}


def test_the_outer_task_lists_the_inner_folder_as_a_task_of_its_own():
    entries = [FileEntry(path="task.toml", type="file"), FileEntry(path="inner", type="directory")]
    row, entry = read_task("tasks/outer", entries, {"task.toml": "[task]\nname = 'x'\n"},
                           nested={"inner": "outer/inner"})
    assert ["inner", "directory", 0, NESTED_TASK_WHY] in entry["files"]
    assert entry["nested"] == {"inner": "outer/inner"}


@pytest.mark.parametrize("path, why", [
    ("inner/solution/solve.sh", "Reference solutions are withheld."),
    ("inner/tests/expected_output.txt", "Its name says it holds answers for the grader."),
    ("inner/tests/cases.json", "Data beside the grader is withheld"),
    ("inner/deeper/solution/solve.sh", "Reference solutions are withheld."),
    ("inner/deeper/tests/data.csv", "Data beside the grader is withheld"),
])
def test_a_nested_task_is_judged_from_its_own_root_at_any_depth(path, why):
    assert withheld_file_reason(path, nested=["inner", "inner/deeper"]).startswith(why)


def test_a_nested_task_keeps_its_grader_and_instruction_visible():
    for path in ("inner/tests/test.sh", "inner/instruction.md", "inner/environment/Dockerfile"):
        assert withheld_file_reason(path, nested=["inner"]) is None


# --- files beside task.toml ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["events.json", "assets/window.txt", "data/table.csv", "steps/one/trajectory.json",
                                  "blob.bin", "fixtures/input.yaml"])
def test_data_beside_task_toml_is_withheld_by_default_with_the_reason(path):
    assert withheld_file_reason(path) == OTHER_DATA_WHY


@pytest.mark.parametrize("path", ["gold.json", "assets/gold_events.csv", "expected_ids.py", "scripts/answers.sh"])
def test_answer_named_files_beside_task_toml_are_withheld(path):
    assert withheld_file_reason(path) == "Its name says it holds answers for the grader."


@pytest.mark.parametrize("path", ["build_assets.py", "scripts/generate.sh", "README.md", "NOTES.md", "LICENSE",
                                  "environment/events.csv", "steps/one/workdir/data.csv", "assets"])
def test_generators_notes_and_the_environment_stay_visible(path):
    assert withheld_file_reason(path, is_dir=path == "assets") is None


def test_a_generator_beside_task_toml_loses_the_values_the_grader_masks():
    texts = {
        "build_assets.py": dedent('''
            SEED = "KEEP-seed"
            EXPECTED_IDS = ["ZX-1", "ZX-2"]
            WINDOW = ("10:00:05", "10:04:59")
            EVENTS = [{"id": "evt-7731", "kind": "KEEP-kind"}]
        '''),
        "tests/verifier.py": 'GOLD_WINDOW = ("10:00:05", "10:04:59")\nexpected_event = "evt-7731"\n',
    }
    shown = withhold_task_texts(texts).texts["build_assets.py"]
    assert "ZX-1" not in shown and "10:00:05" not in shown and "10:04:59" not in shown and "evt-7731" not in shown
    assert 'SEED = "KEEP-seed"' in shown and '"kind": "KEEP-kind"' in shown and shown.count("\n") == 4


def test_where_the_task_root_is_the_environment_its_data_stays_but_answers_do_not():
    # Terminal-Bench 1: the Dockerfile beside task.yaml copies the task folder into the image.
    for path in ("notes.txt", "db/init.sql", "task.yaml", "Dockerfile", "run-tests.sh"):
        assert withheld_file_reason(path, environment_root=True) is None, path
    assert withheld_file_reason("notes.txt") == OTHER_DATA_WHY
    for path in ("solution.sh", "solution.yaml", "expected_output.json", "tests/data.csv", "gold/answers.txt"):
        assert withheld_file_reason(path, environment_root=True), path


# --- answers stated in words ---------------------------------------------------------------------------------

def test_a_shell_comment_that_states_the_answer_is_masked():
    script = dedent('''
        # The expected code is 7Q4-PLUM (printed last).
        # Compare with the expected file; the output format: one line.
        EXPECTED_LINES=3
        [ "$(tail -n1 out)" = "7Q4-PLUM" ] && echo 1 > reward.txt
    ''')
    masked = withhold_task_texts({"tests/test.sh": script}).texts["tests/test.sh"]
    assert "7Q4-PLUM" not in masked
    assert f"# The expected code is {MASK}" in masked
    assert "# Compare with the expected file; the output format: one line." in masked


def test_a_docstring_that_lists_the_gold_values_is_masked_with_the_dict():
    script = dedent('''
        """Checks the receipts.

        Gold: vendor, date, total for every receipt
            r1: Acme Corp, 2024-01-02, 1234.56
        """
        GOLD = {"r1": {"vendor": "Acme Corp", "date": "2024-01-02", "total": 1234.56}}


        def test_receipts(out):
            """The expected answer: Acme Corp for r1."""
            assert out["r1"]["vendor"] == GOLD["r1"]["vendor"]  # not Acme Corp's branch
    ''')
    masked = withhold_task_texts({"tests/test_outputs.py": script}).texts["tests/test_outputs.py"]
    for value in ("Acme Corp", "2024-01-02", "1234.56"):
        assert value not in masked, value
    assert f'"""The expected answer: {MASK}"""' in masked
    assert 'GOLD["r1"]["vendor"]' in masked and "def test_receipts(out):" in masked


def test_prose_that_only_mentions_an_answer_word_stays():
    script = 'EXPECTED="x"\n# compare with the expected output\n# Expected output format: CSV\n'
    masked, _ = mask_grader_script(script)
    assert masked.splitlines()[1:] == ["# compare with the expected output", "# Expected output format: CSV"]


# --- a value masked once is masked everywhere --------------------------------------------------------------

def test_a_value_masked_in_one_grader_file_is_masked_in_every_other():
    texts = {
        "tests/test.sh": 'EXPECTED="41-DELTA"\ngrep -q "$EXPECTED" /app/out\n',
        "tests/helpers.py": 'def check(out):\n    return out.strip() == "41-DELTA"  # see test.sh\n',
        "README.md": "The grader checks for 41-DELTA.\n",
    }
    shown = withhold_task_texts(texts)
    assert all("41-DELTA" not in text for text in shown.texts.values())
    assert "41-DELTA" in shown.values
    assert any(w.where == "tests/helpers.py line 2" for w in shown.withheld)


def test_values_the_instruction_states_and_the_environment_are_left_alone():
    texts = {
        "instruction.md": "Write the word DONE-42 when finished, then the secret.\n",
        "environment/seed.txt": "SECRET-77\n",
        "tests/test.sh": 'EXPECTED="SECRET-77"\nMARKER="DONE-42"\ngold="DONE-42"\necho DONE-42\n',
    }
    shown = withhold_task_texts(texts)
    assert shown.texts["environment/seed.txt"] == "SECRET-77\n"
    assert shown.texts["instruction.md"] == texts["instruction.md"]
    assert "SECRET-77" not in shown.texts["tests/test.sh"]
    assert 'MARKER="DONE-42"' in shown.texts["tests/test.sh"] and "echo DONE-42" in shown.texts["tests/test.sh"]


def test_keys_booleans_and_tiny_values_are_not_spread():
    texts = {"tests/t.py": 'EXPECTED = {"vendor": True, "n": 1}\nvendor = load()\nn = 1\nflag = True\n'}
    masked = withhold_task_texts(texts).texts["tests/t.py"]
    assert masked.splitlines()[1:] == ["vendor = load()", "n = 1", "flag = True"]


def test_what_the_reference_solution_writes_is_masked_in_the_graders():
    texts = {
        "solution/solve.sh": "#!/bin/bash\nprintf 'K9-AMBER\\nK9-TEAL\\n' > /app/out.txt\ncd /app\n",
        "tests/test.sh": 'grep -q "K9-AMBER" /app/out.txt && grep -q K9-TEAL /app/out.txt\ncd /app\n',
    }
    shown = withhold_task_texts(texts)
    assert "solution/solve.sh" not in shown.texts
    assert "K9-AMBER" not in shown.texts["tests/test.sh"] and "K9-TEAL" not in shown.texts["tests/test.sh"]
    assert shown.texts["tests/test.sh"].endswith("cd /app\n")


# --- metadata ------------------------------------------------------------------------------------------------

def test_metadata_naming_a_masked_value_is_masked_in_the_row_and_the_summary():
    toml = dedent('''
        [task]
        name = "x/y"
        description = "Recover the key: the grader wants CRIMSON-881."
        keywords = ["KEEP-kw", "CRIMSON-881"]
        [metadata]
        title = "Find CRIMSON-881"
        notes = "CRIMSON-881 is set by the generator."
        gold_answer = "CRIMSON-881"
        category = "KEEP-cat"
    ''')
    entries = [FileEntry(path="task.toml", type="file")]
    row, entry = read_task("tasks/y", entries, {"task.toml": toml})
    assert "CRIMSON-881" not in repr((row, entry["config"], entry["texts"], entry["withheld"]))
    assert row.title == f"Find {MASK}" and row.brief == f"Recover the key: the grader wants {MASK}."
    assert sorted(row.facets["tags"]) == sorted(["KEEP-kw", MASK]) and row.facets["category"] == "KEEP-cat"
    assert entry["config"]["metadata"]["notes"] == f"{MASK} is set by the generator."
