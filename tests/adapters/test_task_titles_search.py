"""Tasks told apart and found: a dataset whose every prompt opens with the same long preamble (a shared system
prompt, a 4,400-character instruction) titles each task by its own question, on the list, the task page and the
API alike; and task search finds the question at the end of the prompt, past the brief."""

from __future__ import annotations

import json

import pytest

from tests.conftest import index_now

ORG, NAME = "lab", "shared-preamble"
SYSTEM = "You are a careful assistant. Think step by step and answer with one word."
PREAMBLE = ("Read the rules of the game before you answer.\n\n"
            + "\n".join(f"Rule {n}: the board holds {n} tokens and every move must leave the board tidy." for n in
                        range(1, 59)) + "\n\n")
QUESTIONS = ["Which planet keeps the moon Xylophorbia?", "How many sides has a quindecagon?",
             "What colour is the flag of Tarvonia?", "Who wrote the saga of Brennick the Bold?",
             "Which river runs through Vellmoor?"]
LONE_QUESTION = "Where is the Quornflake festival held?"


def _rows():
    for n, question in enumerate(QUESTIONS):
        yield {"data_source": "lab/game", "prompt": [{"role": "system", "content": SYSTEM},
                                                     {"role": "user", "content": PREAMBLE + question}],
               "ability": "riddles", "reward_model": {"style": "rule", "ground_truth": f"zorbulon{n}"},
               "extra_info": {"index": n}}


@pytest.fixture
def titled_app(tmp_path, make_config, redis_client):
    from rlx import create_app

    root = tmp_path / "hub" / "datasets" / ORG / NAME
    (root / "data").mkdir(parents=True)
    (root / "README.md").write_text("---\npretty_name: Shared preamble\ntags:\n- verl\n---\n# Shared preamble\n")
    (root / "data" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    # A split of one: no opening to cut, so its question stays past the brief, at the end of 4,400 characters.
    alone = {**next(_rows()), "prompt": [{"role": "user", "content": PREAMBLE + LONE_QUESTION}]}
    (root / "data" / "test.jsonl").write_text(json.dumps(alone) + "\n")
    assert len(PREAMBLE + QUESTIONS[0]) > 4400
    app = create_app(make_config(RLX_SOURCE=str(tmp_path / "hub")))
    index_now(app, f"{ORG}/{NAME}")
    return app


def test_each_task_is_titled_by_its_own_question_on_list_page_and_api(titled_app):
    client = titled_app.test_client()
    listed = client.get(f"/api/search/tasks?env={ORG}/{NAME}&size=50").get_json()["tasks"]
    rows = {row["ref"]: row for row in listed}
    assert [rows[f"train/{n}"]["title"] for n in range(len(QUESTIONS))] == QUESTIONS
    assert all(rows[f"train/{n}"]["brief"].startswith(QUESTIONS[n]) for n in range(len(QUESTIONS)))
    for n, question in enumerate(QUESTIONS):
        task = client.get(f"/api/task/{ORG}/{NAME}/train/{n}").get_json()
        assert task["title"] == question
        page = client.get(f"/t/{ORG}/{NAME}/train/{n}").get_data(as_text=True)
        assert f"<title>{question}" in page.replace("&#39;", "'")
        assert PREAMBLE.splitlines()[0] in page  # the prompt itself is whole: only the title skips the preamble
    env_page = client.get(f"/d/{ORG}/{NAME}").get_data(as_text=True).replace("&#39;", "'")
    assert all(question in env_page for question in QUESTIONS)


def test_task_search_finds_the_question_at_the_end_of_a_long_prompt(titled_app):
    client = titled_app.test_client()
    found = client.get("/api/search/tasks?q=Vellmoor").get_json()
    assert [(t["env_id"], t["ref"]) for t in found["tasks"]] == [(f"{ORG}/{NAME}", "train/4")]
    alone = client.get("/api/search/tasks?q=Quornflake").get_json()
    assert [(t["env_id"], t["ref"]) for t in alone["tasks"]] == [(f"{ORG}/{NAME}", "test/0")]
    assert "Quornflake" not in alone["tasks"][0]["brief"]  # found by the words past its brief
    assert client.get("/api/search/tasks?q=zorbulon4").get_json()["total"] == 0  # the answer is never a word
