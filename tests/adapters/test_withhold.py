"""Answers stay out: answer keys, answer files, answers in grader scripts and in raw task.toml."""

import json
import re
import textwrap
import tomllib
from pathlib import Path

import pytest

from rlx.adapters.harbor.taskconfig import parse_task_toml
from rlx.adapters.withhold import (
    MASK,
    Withheld,
    is_answer_key,
    mask_grader_script,
    mask_toml_answers,
    strip_answers,
    withheld_file_reason,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "answers"
SECRET = re.compile(r"ZX-ANSWER-\d{4}")


# --- which keys are answers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    "answer", "answers", "Answer", "ANSWER", "final_answer", "finalAnswer", "Final Answer", "final-answer",
    "correct_answer", "correct", "solution", "solutions", "canonical_solution", "canonical-solution",
    "gold", "gold_answer", "goldAnswer", "golden", "gold_patch", "ground_truth", "groundtruth", "groundTruth",
    "GROUND_TRUTH", "Ground Truth", "expected", "expected_output", "expectedOutput", "EXPECTED_OUTPUT",
    "expected_answer", "expected_result", "reference", "reference_answer", "referenceSolution", "ref_answer",
    "ref_output", "ref_code", "oracle", "target", "targets", "label", "labels", "true_label", "gt", "gt_boxes",
    "rubric", "answer_key", "answerKey", "expectedoutput", "finalanswer", "myanswer", "ans",
])
def test_answer_keys_are_recognised_in_every_spelling(key):
    assert is_answer_key(key)


@pytest.mark.parametrize("key", [
    "expert_time_estimate_min", "junior_time_estimate_min", "expected_time_min", "expected_duration_sec",
    "estimated_duration_sec", "reference_url", "referenceUrl", "reference_paper", "target_os", "targetOS",
    "target_platform", "target_language", "answer_format", "answer_type", "has_solution", "difficulty_label",
    "difficulty_explanation", "ref", "git_ref", "task_ref", "difficulty", "category", "tags", "prompt",
    "instruction", "question", "description", "author_email", "unexpected_error", "targeted", "goldfish",
    "answered", "answering", "correctness", "", "reward",
])
def test_harmless_neighbours_are_not_answers(key):
    assert not is_answer_key(key)


def test_a_format_can_add_its_own_answer_names():
    assert is_answer_key("FAIL_TO_PASS", extra_keys=["fail_to_pass"])
    assert not is_answer_key("FAIL_TO_PASS")


# --- nested data ------------------------------------------------------------------------------------------

def test_answers_are_stripped_at_any_depth_and_each_is_recorded():
    value = {
        "difficulty": "hard",
        "info": {"meta": {"reward_model": {"ground_truth": "42", "style": "rule"}}},
        "turns": [{"role": "user", "content": "hi"}, {"role": "assistant", "finalAnswer": "42"}],
    }
    cleaned, withheld = strip_answers(value, "metadata")
    assert cleaned == {
        "difficulty": "hard",
        "info": {"meta": {"reward_model": {"style": "rule"}}},
        "turns": [{"role": "user", "content": "hi"}, {"role": "assistant"}],
    }
    assert withheld == [
        Withheld("metadata.info.meta.reward_model.ground_truth", "its name marks it as an answer"),
        Withheld("metadata.turns[1].finalAnswer", "its name marks it as an answer"),
    ]


def test_the_original_value_is_left_untouched():
    value = {"a": {"answer": 1}}
    strip_answers(value)
    assert value == {"a": {"answer": 1}}


def test_answers_inside_a_json_string_are_stripped_and_the_rest_kept():
    row = {"extra_info": json.dumps({"index": 3, "answer": "42", "split": "train"})}
    cleaned, withheld = strip_answers(row)
    assert json.loads(cleaned["extra_info"]) == {"index": 3, "split": "train"}
    assert withheld == [Withheld("extra_info.answer", "its name marks it as an answer")]


def test_a_json_string_without_answers_comes_back_byte_for_byte():
    text = '{"b": 1,   "a": [1, 2]}'
    assert strip_answers({"data": text}) == ({"data": text}, [])


def test_plain_text_that_mentions_answers_is_kept():
    row = {"prompt": "the expected format is CSV; put the answer on one line"}
    assert strip_answers(row) == (row, [])


def test_a_whole_answer_subtree_goes_with_its_key():
    cleaned, withheld = strip_answers({"solutions": [{"code": "x"}, {"code": "y"}], "id": 1})
    assert cleaned == {"id": 1}
    assert [item.where for item in withheld] == ["solutions"]


def test_data_nested_too_deep_to_check_is_withheld_rather_than_shown():
    value = leaf = {}
    for _ in range(100):
        leaf["next"] = {}
        leaf = leaf["next"]
    leaf["secret"] = "ZX-ANSWER-9999"
    cleaned, withheld = strip_answers(value)
    assert "ZX-ANSWER" not in json.dumps(cleaned)
    assert withheld[-1].why == "it is nested too deep to check for answers"


def test_format_specific_names_are_stripped_too():
    cleaned, withheld = strip_answers({"FAIL_TO_PASS": ["t1"], "repo": "x"}, extra_keys=["fail_to_pass"])
    assert cleaned == {"repo": "x"}
    assert withheld[0].where == "FAIL_TO_PASS"


# --- files ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "solution/solve.sh", "solution", "Solution/solve.sh", "solution/nested/helper.py", "solution.sh",
    "steps/two/solution/solve.sh", "./solution//solve.sh",
])
def test_reference_solutions_are_always_withheld(path):
    assert withheld_file_reason(path) == "Reference solutions are withheld."


@pytest.mark.parametrize("path", [
    "tests/expected_output.json", "tests/expected.txt", "tests/answers.txt", "tests/gold.json",
    "tests/golden/case1.out", "tests/reference.py", "tests/ref_1.txt", "tests/oracle_output.txt",
    "tests/solution_check.py", "tests/rubric.md", "tests/ground_truth.csv", "tests/case1.expected",
    "tests/case_expected.txt", "tests/q1_answers.json", "tests/labels.npy", "steps/two/tests/answer.txt",
    "tests/EXPECTED_OUTPUT.TXT",
])
def test_answer_named_files_beside_the_grader_are_withheld(path):
    assert withheld_file_reason(path) == "Its name says it holds answers for the grader."


@pytest.mark.parametrize("path", [
    "tests/data/cases.jsonl", "tests/inputs.csv", "tests/matrix.npy", "tests/table.parquet", "tests/model.pkl",
    "tests/config.yaml", "tests/notes.txt", "tests/out.tsv", "steps/two/tests/fixture.json", "tests/blob",
])
def test_other_data_beside_the_grader_is_withheld(path):
    assert withheld_file_reason(path).startswith("Data beside the grader is withheld")


@pytest.mark.parametrize("path", [
    "tests/test.sh", "tests/test.bat", "tests/test_outputs.py", "tests/conftest.py", "tests/helpers/util.py",
    "tests/requirements.txt", "tests/Dockerfile", "task.toml", "instruction.md", "environment/Dockerfile",
    "environment/data/expected_input.json", "steps/two/instruction.md", "steps/two/workdir/setup.sh",
    "README.md", "tests", "",
])
def test_grader_scripts_and_everything_the_agent_gets_stay_visible(path):
    assert withheld_file_reason(path) is None


def test_a_folder_beside_the_grader_is_listed_but_an_answer_folder_is_not():
    assert withheld_file_reason("tests/helpers", is_dir=True) is None
    assert withheld_file_reason("tests/golden", is_dir=True) == "Its name says it holds answers for the grader."


@pytest.mark.parametrize("path", ["../task2/solution/solve.sh", "/etc/passwd", "tests/%2e%2e/%2e%2e/x"])
def test_a_path_that_could_escape_is_withheld(path):
    assert withheld_file_reason(path) == "The path could lead outside the task folder."


# --- grader scripts -----------------------------------------------------------------------------------------

def mask(text: str, where: str = "tests/test.sh"):
    return mask_grader_script(textwrap.dedent(text).lstrip("\n"), where)


def test_shell_answer_variables_are_masked_and_comparisons_kept():
    masked, withheld = mask("""
        #!/bin/bash
        EXPECTED="ZX-ANSWER-0001"
        export ANSWER=ZX-ANSWER-0002
        OUT=$(cat /app/out.txt)
        if [ "$OUT" == "$EXPECTED" ]; then echo 1 > /logs/verifier/reward.txt; fi
    """)
    assert masked.splitlines() == [
        "#!/bin/bash",
        f"EXPECTED={MASK}",
        f"export ANSWER={MASK}",
        "OUT=$(cat /app/out.txt)",
        'if [ "$OUT" == "$EXPECTED" ]; then echo 1 > /logs/verifier/reward.txt; fi',
    ]
    assert [item.where for item in withheld] == ["tests/test.sh line 2", "tests/test.sh line 3"]


def test_values_that_only_refer_elsewhere_stay_visible():
    script = 'EXPECTED=$(cat /tests/expected.txt)\nANSWER="$WANT"\nGOLD=${REF}\n'
    assert mask_grader_script(script) == (script, [])


def test_an_answer_named_heredoc_is_masked_line_for_line():
    masked, withheld = mask("""
        cat > /tmp/expected.txt <<'EOF'
        ZX-ANSWER-0003
        ZX-ANSWER-0004
        EOF
        python3 /tests/check.py /tmp/expected.txt
    """)
    assert masked.splitlines() == [
        "cat > /tmp/expected.txt <<'EOF'", MASK, MASK, "EOF", "python3 /tests/check.py /tmp/expected.txt"]
    assert withheld == [Withheld("tests/test.sh lines 2-3", "the text this heredoc writes looks like an answer")]


@pytest.mark.parametrize("opener", [
    "cat <<EXPECTED > /tmp/out.txt", "cat <<-ANSWER > /tmp/x", "GOLD=$(cat <<EOF", "diff /app/out.txt - <<EOF",
    "tee /tmp/answers.json <<\"EOF\"",
])
def test_heredocs_named_for_answers_or_compared_against_are_masked(opener):
    delimiter = re.search(r"<<-?\"?(\w+)", opener).group(1)
    masked, _ = mask_grader_script(f"{opener}\nZX-ANSWER-0005\n{delimiter}\n")
    assert "ZX-ANSWER" not in masked
    assert masked.count("\n") == 3


def test_an_ordinary_heredoc_stays_but_answers_inside_it_do_not():
    masked, _ = mask("""
        cat > /tmp/check.py <<EOF
        import json
        expected = {
            "a": "ZX-ANSWER-0006",
        }
        print(json.dumps(expected))
        EOF
    """)
    assert "ZX-ANSWER" not in masked
    assert "import json" in masked and "print(json.dumps(expected))" in masked
    assert len(masked.splitlines()) == 7


def test_echo_into_an_answer_file_and_here_strings_are_masked():
    masked, withheld = mask_grader_script('echo "ZX-ANSWER-0007" > /tmp/gold.txt\nread -r GOLD <<< "ZX-ANSWER-0008"\n')
    assert masked == f"echo {MASK} > /tmp/gold.txt\nread -r GOLD <<< {MASK}\n"
    assert len(withheld) == 2


def test_shell_arrays_and_multi_line_strings_are_masked_whole():
    masked, _ = mask_grader_script('ANSWERS=(\n  "a"\n  "b"\n)\nEXPECTED="one\ntwo"\necho done\n')
    assert "\"a\"" not in masked and "two" not in masked
    assert masked.splitlines()[-1] == "echo done"
    assert masked.count("\n") == 7


def test_yaml_answers_written_by_a_heredoc_are_masked():
    script = textwrap.dedent("""
        cat > /tmp/cases.yaml <<EOF
        - input: keep-1
          expected: ZX-ANSWER-0030
        - input: keep-2
          answer: |
            ZX-ANSWER-0031
            ZX-ANSWER-0032
          note: keep-3
        EOF
    """)
    masked, _ = mask_grader_script(script)
    assert "ZX-ANSWER" not in masked
    assert all(f"keep-{n}" in masked for n in (1, 2, 3))
    assert masked.count("\n") == script.count("\n")


def test_python_answer_literals_are_masked_multi_line_too():
    masked, withheld = mask("""
        import pytest

        EXPECTED_OUTPUT = [
            "ZX-ANSWER-0010",
            "ZX-ANSWER-0011",
        ]
        answers = {"q1": "ZX-ANSWER-0012"}


        def check(out, expected="ZX-ANSWER-0013"):
            assert out == expected


        @pytest.mark.parametrize("inp, expected", [(1, "ZX-ANSWER-0014")])
        def test_rows(inp, expected):
            data = load("/tests/expected_output.json")
            wanted = data["answer"]
            answer = solve(inp)
            verify(answer=answer, gold="ZX-ANSWER-0015")
            config = {"mode": "strict", "reference": "ZX-ANSWER-0016"}
    """, "tests/test_outputs.py")
    assert "ZX-ANSWER" not in masked
    for kept in ('data = load("/tests/expected_output.json")', 'wanted = data["answer"]', "answer = solve(inp)",
                 "assert out == expected", '"mode": "strict"', "def test_rows(inp, expected):"):
        assert kept in masked
    assert withheld[0] == Withheld("tests/test_outputs.py lines 3-6", "the value given to EXPECTED_OUTPUT looks like an answer")


def test_masking_keeps_every_line_number():
    script = 'x = 1\nexpected = """a\nb\nc"""\ny = 2\n'
    masked, _ = mask_grader_script(script)
    assert masked.split("\n")[0] == "x = 1"
    assert masked.split("\n")[4] == "y = 2"
    assert masked.count("\n") == script.count("\n")


def test_non_ascii_text_before_an_answer_does_not_shift_the_mask():
    masked, _ = mask_grader_script('msg = "héllo wörld"; expected = "ZX-ANSWER-0017"\n')
    assert masked == f'msg = "héllo wörld"; expected = {MASK}\n'


# --- raw task.toml --------------------------------------------------------------------------------------

def test_answer_keyed_values_are_masked_in_raw_toml_and_it_still_parses():
    text = textwrap.dedent('''
        [metadata]
        difficulty = "easy"
        gold_answer = "ZX-ANSWER-0020"
        solution = """
        ZX-ANSWER-0021
        """
        answers = [
          "ZX-ANSWER-0022",
        ]
        hints = { tip = "keep", answer = "ZX-ANSWER-0023" }
    ''').lstrip()
    masked, withheld = mask_toml_answers(text)
    assert "ZX-ANSWER" not in masked
    assert masked.count("\n") == text.count("\n")
    assert tomllib.loads(masked)["metadata"] == {
        "difficulty": "easy", "gold_answer": MASK, "solution": MASK, "answers": MASK,
        "hints": {"tip": "keep", "answer": MASK},
    }
    assert [item.where for item in withheld] == [
        "metadata.gold_answer", "metadata.solution", "metadata.answers", "metadata.hints.answer"]


def test_harbor_solution_table_is_config_not_an_answer():
    text = '[solution.env]\nSEED = "7"\nANSWER = "ZX-ANSWER-0024"\n'
    masked, _ = mask_toml_answers(text)
    assert masked == f'[solution.env]\nSEED = "7"\nANSWER = "{MASK}"\n'


def test_everything_under_an_answer_table_is_masked():
    masked, withheld = mask_toml_answers('[metadata.oracle]\nnote = "ZX-ANSWER-0025"\n[[metadata.answers]]\nv = 3\n')
    assert "ZX-ANSWER" not in masked and "= 3" not in masked
    assert [item.where for item in withheld] == ["metadata.oracle.note", "metadata.answers[0].v"]


def test_a_broken_toml_file_is_still_masked():
    text = '[metadata]\nbroken line\ngold = "ZX-ANSWER-0026"\nitems = [ {{ bad\nexpected = "ZX-ANSWER-0027"\n'
    masked, _ = mask_toml_answers(text)
    assert "ZX-ANSWER" not in masked
    assert "broken line" in masked


def test_an_answer_value_that_never_ends_is_masked_to_the_end_of_the_file():
    masked, _ = mask_toml_answers('a = 1\nsolution = """\nZX-ANSWER-0028\n')
    assert masked.startswith("a = 1\n")
    assert "ZX-ANSWER" not in masked


# --- adversarial fixtures: secrets planted everywhere -----------------------------------------------------------

def visible_text_of_task(task: Path) -> dict[str, str]:
    """What the app may show of a task: files not withheld, task.toml and grader scripts masked."""
    shown = {}
    for path in sorted(p for p in task.rglob("*") if p.is_file()):
        rel = path.relative_to(task).as_posix()
        if withheld_file_reason(rel):
            continue
        text = path.read_text()
        if rel == "task.toml":
            text, _ = mask_toml_answers(text)
        elif "/tests/" in f"/{rel}":
            text, _ = mask_grader_script(text, rel)
        shown[rel] = text
    return shown


def planted(path: Path) -> int:
    return sum(len(SECRET.findall(p.read_text())) for p in (path.rglob("*") if path.is_dir() else [path])
               if p.is_file())


def test_the_fixtures_really_plant_secrets_everywhere():
    assert planted(FIXTURES / "task") >= 40
    assert planted(FIXTURES / "rows.json") >= 6


def test_no_planted_secret_survives_anything_the_task_page_shows():
    shown = visible_text_of_task(FIXTURES / "task")
    leaks = {rel: SECRET.findall(text) for rel, text in shown.items() if SECRET.search(text)}
    assert leaks == {}
    assert set(shown) == {"task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh",
                          "tests/grade_outputs.py"}


def test_harmless_neighbours_of_the_secrets_all_survive():
    task = FIXTURES / "task"
    for rel, text in visible_text_of_task(task).items():
        assert text.count("KEEP-ME") == (task / rel).read_text().count("KEEP-ME"), rel
        assert text.count("\n") == (task / rel).read_text().count("\n"), rel


def test_no_planted_secret_survives_the_parsed_config_once_stripped():
    config = parse_task_toml((FIXTURES / "task" / "task.toml").read_text())
    metadata, _ = strip_answers(config.metadata, "metadata")
    env, _ = strip_answers(config.verifier.env, "verifier.env")
    extra, _ = strip_answers(config.extra)
    shown = json.dumps([metadata, env, extra, config.task.description])
    assert not SECRET.search(shown)
    assert metadata["expert_time_estimate_min"] == 45.0
    assert metadata["reference_url"] == "https://example.org/KEEP-ME-paper"
    assert env == {"MODE": "KEEP-ME-strict"}


def test_no_planted_secret_survives_in_rows():
    rows = json.loads((FIXTURES / "rows.json").read_text())
    cleaned, withheld = strip_answers(rows, "rows")
    shown = json.dumps(cleaned)
    assert not SECRET.search(shown)
    assert shown.count("KEEP-ME") == json.dumps(rows).count("KEEP-ME")
    assert len(withheld) == 6


# --- values the instruction states itself ----------------------------------------------------------------------

def test_a_value_the_instruction_states_whole_stays_shown_and_a_part_of_a_word_does_not_count():
    from rlx.adapters.withhold.values import drop_public

    instruction = "Set the limit to 4096 in config_v2, not v12; the name is 'ZX-77'."
    kept = drop_public(["4096", "12", "ZX-77", "config", "ZX-0001"], instruction)
    assert kept == ["ZX-0001", "config", "12"]  # 4096 and ZX-77 stand whole in it; 12 and config only inside words


def test_thousands_of_values_in_a_large_gold_patch_are_checked_against_the_issue():
    from rlx.adapters.withhold.values import drop_public

    values = [f"value_{n}" for n in range(1_000, 3_000)]
    issue = "The failure shows value_1017 and value_2999, and a value_29990 nearby."
    kept = drop_public(values, issue)
    assert len(kept) == 1_998 and "value_1017" not in kept and "value_2999" not in kept and "value_2990" in kept
