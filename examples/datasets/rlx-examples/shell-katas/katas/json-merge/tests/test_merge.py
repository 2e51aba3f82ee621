import json
import subprocess


def test_merge_matches_the_gold_file():
    out = subprocess.run(["python3", "merge.py", "workspace/base.json", "workspace/override.json"],
                         capture_output=True, text=True, check=True).stdout
    gold = json.load(open("tests/fixtures/gold.json"))
    assert json.loads(out) == gold


def test_lists_are_replaced():
    expected = {"tags": ["ZX-ANSWER-4002"]}
    assert expected
