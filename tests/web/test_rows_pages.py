"""Rows datasets as a visitor sees them: the environment page (splits, rows, columns, facets), the task list,
task pages for any row with prev/next/random, and no answer anywhere (pages, JSON, the catalog's search)."""

import re

import pytest

from tests.conftest import index_now

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
ROWS_EXAMPLES = {
    "rlx-examples/math-word-problems": "verifiers",
    "rlx-examples/countdown-verl": "verl",
    "rlx-examples/tool-calls-nemo-gym": "nemo-gym",
    "rlx-examples/trivia-table": "generic",
    "rlx-examples/mimo-sample": "mimo",
}


@pytest.fixture
def rows_app(app):
    for repo_id in ROWS_EXAMPLES:
        index_now(app, repo_id)
    return app


@pytest.fixture
def rows_client(rows_app):
    return rows_app.test_client()


@pytest.mark.parametrize("repo_id, processor", ROWS_EXAMPLES.items())
def test_each_rows_example_opens_read_by_its_processor(rows_app, repo_id, processor):
    from rlx.adapters.indexes import load_index

    index = load_index(rows_app.extensions["rlx.store"], repo_id)
    assert index.adapter == "rows" and index.summary["processor"] == processor
    html = rows_app.test_client().get(f"/d/{repo_id}").get_data(as_text=True)
    assert "Splits" in html and "Columns" in html
    assert 'class="task-row' in html
    assert not SECRET.search(html)


def test_environment_page_shows_splits_row_counts_and_split_facets(rows_client):
    html = rows_client.get("/d/rlx-examples/tool-calls-nemo-gym").get_data(as_text=True)
    assert "9 rows" in html and "3 rows" in html and "validation" in html
    assert html.count('class="task-row') == 12
    narrowed = rows_client.get("/d/rlx-examples/tool-calls-nemo-gym?f=split:validation").get_data(as_text=True)
    assert narrowed.count('class="task-row') == 3


def test_answer_columns_are_not_listed_among_the_columns(rows_client):
    html = rows_client.get("/d/rlx-examples/trivia-table").get_data(as_text=True)
    columns = html[html.index("Every column"):]
    assert "question" in columns and "difficulty" in columns
    assert ">answer<" not in columns


def test_a_row_whose_title_is_its_prompt_says_it_once_in_the_task_list(rows_app):
    def first_row(path):
        html = rows_app.test_client().get(path).get_data(as_text=True)
        return html[html.index('class="task-row'):html.index("</li>", html.index('class="task-row'))]

    row = first_row("/d/rlx-examples/trivia-table?q=icosahedron")
    assert row.count("How many edges does an icosahedron have?") == 1
    assert 'class="task-brief' not in row
    # a prompt longer than a title: said once too, whole (the title is its start, cut)
    row = first_row("/d/rlx-examples/math-word-problems")
    assert row.count("A bakery bakes 7 trays of rolls") == 1 and "How many rolls are left?" in row
    index_now(rows_app, "rlx-examples/terminal-basics")  # a Harbor task's folder name and its instruction: both
    assert 'class="task-brief' in first_row("/d/rlx-examples/terminal-basics")


def test_searching_the_task_list_finds_rows_by_their_words(rows_client):
    html = rows_client.get("/d/rlx-examples/trivia-table?q=icosahedron").get_data(as_text=True)
    assert html.count('class="task-row') == 1 and "test/2" in html


@pytest.mark.parametrize("url", ["/t/rlx-examples/trivia-table/train/0", "/t/rlx-examples/tool-calls-nemo-gym/train/4",
                                 "/t/rlx-examples/mimo-sample/code/train/1", "/t/rlx-examples/countdown-verl/train/2",
                                 "/t/rlx-examples/math-word-problems/train/5"])
def test_task_pages_show_the_prompt_say_what_was_withheld_and_leak_nothing(rows_client, url):
    page = rows_client.get(url)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "What the agent gets" in html and "withheld" in html
    assert not SECRET.search(html)
    api = rows_client.get(url.replace("/t/", "/api/task/", 1))
    assert api.status_code == 200 and not SECRET.search(api.get_data(as_text=True))
    assert api.get_json()["withheld"]


def test_nemo_gym_task_page_shows_tools_and_the_agent_server(rows_client):
    html = rows_client.get("/t/rlx-examples/tool-calls-nemo-gym/train/2").get_data(as_text=True)
    assert "get_weather" in html and "get_local_time" in html and "travel_tools_agent" in html
    # the resources server's data is withheld whole, named with why
    assert "<code>verifier_metadata</code>: read by the resources server&#39;s verify()" in html


def test_prev_next_stay_within_the_split_and_random_lands_on_a_row(rows_client):
    html = rows_client.get("/t/rlx-examples/tool-calls-nemo-gym/validation/0").get_data(as_text=True)
    assert 'rel="next"' in html and "validation/1" in html and 'rel="prev"' not in html
    assert "Task 1 of 3" in html
    last = rows_client.get("/t/rlx-examples/tool-calls-nemo-gym/validation/2").get_data(as_text=True)
    assert 'rel="next"' not in last
    for _ in range(5):
        jump = rows_client.get("/d/rlx-examples/tool-calls-nemo-gym/random?near=validation/1")
        assert jump.status_code == 303
        assert re.search(r"/t/rlx-examples/tool-calls-nemo-gym/validation/[0-2]$", jump.headers["Location"])


@pytest.mark.parametrize("ref", ["train/9", "train/-1", "validation/3", "nope/0", "default/train/0", "train/x",
                                 "train/99999999999999"])
def test_rows_that_do_not_exist_are_404s(rows_client, ref):
    assert rows_client.get(f"/t/rlx-examples/tool-calls-nemo-gym/{ref}").status_code == 404


def test_any_row_opens_by_its_number_and_a_bad_number_is_refused_with_a_sentence(rows_client):
    html = rows_client.get("/d/rlx-examples/tool-calls-nemo-gym").get_data(as_text=True)
    assert 'name="split"' in html and "validation (0 to 2)" in html
    jump = rows_client.get("/d/rlx-examples/tool-calls-nemo-gym/row?split=validation&i=2")
    assert jump.status_code == 303
    assert jump.headers["Location"].endswith("/t/rlx-examples/tool-calls-nemo-gym/validation/2")
    assert rows_client.get("/d/rlx-examples/tool-calls-nemo-gym/row?split=validation&i=3").status_code == 404
    for bad in ("-1", "x", "1e3", "9" * 20, ""):
        refused = rows_client.get(f"/d/rlx-examples/tool-calls-nemo-gym/row?split=train&i={bad}")
        assert refused.status_code == 400, bad
    configs = rows_client.get("/d/rlx-examples/mimo-sample/row?split=music/train&i=1")
    assert configs.headers["Location"].endswith("/t/rlx-examples/mimo-sample/music/train/1")


def test_a_rows_dataset_offers_no_batch_and_says_why_and_what_one_can_do(rows_client):
    html = rows_client.get("/d/rlx-examples/trivia-table").get_data(as_text=True)
    assert "Start batch" not in html and "/d/rlx-examples/trivia-table/batch" not in html
    assert "No batch evaluation here." in html and "they are rows of a table" in html
    assert 'over <a href="#mcp">MCP</a>' in html and 'id="mcp"' in html  # the way out is on the same page
    task = rows_client.get("/t/rlx-examples/trivia-table/train/0").get_data(as_text=True)
    assert "The tasks of this dataset cannot run here: they are rows of a table" in task
    assert 'href="/d/rlx-examples/trivia-table#mcp"' in task


def test_a_forged_batch_on_a_rows_dataset_is_refused_with_the_same_reason(rows_client):
    response = rows_client.post("/d/rlx-examples/trivia-table/batch", headers={"Origin": "http://localhost"},
                                data={"agent": "oracle", "visibility": "private", "cap": "2"})
    assert response.status_code == 400 and "they are rows of a table" in response.get_data(as_text=True)


def test_rows_asked_twice_keep_their_own_question_as_title(rows_client):
    """The bundled math example holds the same question in rows 3, 23 and 33: each is titled by that question, not
    by its last word (as though all of it were an opening every row shares)."""
    html = rows_client.get("/d/rlx-examples/math-word-problems").get_data(as_text=True)
    titles = re.findall(r'<span class="task-title[^"]*"[^>]*>([^<]*)</span>', html)
    assert len(titles) >= 34
    for i in (3, 23, 33):
        assert titles[i].startswith("One pipe fills a tank in 12 hours and a second pipe"), titles[i]
    assert not [t for t in titles if len(t.split()) < 3]  # no title of a word or two ("together?", "cent?")
