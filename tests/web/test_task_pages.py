"""The environment page, the task page and the file viewer, as a visitor sees them (JS off: plain GETs)."""

import re
import shutil
from html import unescape

import pytest

from rlx import create_app
from tests.conftest import index_now
from tests.crawl import crawl

FIXTURE_TASK = __import__("pathlib").Path(__file__).parents[1] / "fixtures" / "answers" / "task"
SECRET = re.compile(r"ZX-ANSWER-\d{4}")


def test_environment_page_shows_the_overview_and_every_task(indexed_client):
    html = indexed_client.get("/d/rlx-examples/terminal-basics").get_data(as_text=True)
    assert "At a glance" in html and "Runnable here" in html
    assert html.count('class="task-row') == 6
    assert "Difficulty" in html and 'class="facet-value' in html


def test_task_search_and_facets_narrow_the_list_and_keep_the_state_in_the_url(indexed_client):
    html = indexed_client.get("/d/rlx-examples/terminal-basics?q=csv").get_data(as_text=True)
    assert html.count('class="task-row') == 1 and "csv-sales-rollup" in html
    html = indexed_client.get("/d/rlx-examples/python-bugfix?f=network:public").get_data(as_text=True)
    assert html.count('class="task-row') == 1 and "parse-duration" in html
    assert "f=network%3Apublic" in html or "f=network:public" in html  # the selected value links to its removal


def test_htmx_task_list_request_gets_the_list_fragment_only(indexed_client):
    response = indexed_client.get("/d/rlx-examples/terminal-basics?q=log",
                                  headers={"HX-Request": "true", "HX-Target": "tasks"})
    html = response.get_data(as_text=True)
    assert "<html" not in html and "task-row" in html and "At a glance" not in html


ALL_SIX = {"config-rewrite-sed", "csv-sales-rollup", "fix-backup-script", "nginx-log-summary", "permissions-audit",
           "text-diff-report"}


# The expected rows are read off the six tasks' names and tags by hand, not computed by any search code.
@pytest.mark.parametrize("query, expected", [
    ('"', ALL_SIX), ("%", ALL_SIX), ("_", ALL_SIX), ("\x00", ALL_SIX),  # no words: nothing is filtered
    ("NEAR(a b)", set()), ("title:x", set()), ("'; DROP TABLE x; --", set()), ("csv OR x", set()), ("log -x", set()),
    ("日本語", set()),  # syntax means nothing: every word must match, and these do not
    ("csv*", {"csv-sales-rollup"}), ("AWK", {"config-rewrite-sed", "csv-sales-rollup", "nginx-log-summary"}),
    ("jso", {"nginx-log-summary", "permissions-audit"}), ("sed awk", {"config-rewrite-sed"}),
])
def test_search_words_mean_what_they_mean_in_every_search_whatever_they_contain(indexed_client, query, expected):
    response = indexed_client.get("/d/rlx-examples/terminal-basics", query_string={"q": query})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    shown = {ref for ref in ALL_SIX if f"/t/rlx-examples/terminal-basics/{ref}" in html}
    assert shown == expected and html.count('class="task-row') == len(expected)


def test_task_page_shows_the_task_as_the_agent_gets_it(indexed_client):
    page = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    for heading in ("What the agent gets", "How it is graded", "What it runs in", "Metadata", "Files"):
        assert heading in html
    assert "Dockerfile" in html and "tests/test.sh" in html
    assert "withheld" in html and "solution" in html
    assert 'rel="prev"' in html and 'rel="next"' in html


def visible_text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.mark.parametrize("path, heading", [
    ("terminal-basics/csv-sales-rollup", "csv-sales-rollup"),  # the title is the ref
    ("science-puzzles/chemistry/molar-mass-table", "molar-mass-table in chemistry/"),  # the title ends the ref
    ("trivia-table/train/0", "Which planet has the shortest year? train/0"),  # the ref says something else
])
def test_a_task_heading_names_the_task_once(indexed_app, path, heading):
    index_now(indexed_app, "rlx-examples/" + path.split("/")[0])
    html = indexed_app.test_client().get(f"/t/rlx-examples/{path}").get_data(as_text=True)
    head = re.search(r'<h1>.*?</h1>\s*(<p class="task-ref">.*?</p>)?', html, re.S).group(0)  # the title, its ref
    assert visible_text(head) == heading


def test_the_task_list_names_each_task_once(indexed_client):
    html = indexed_client.get("/d/rlx-examples/terminal-basics").get_data(as_text=True)
    rows = re.findall(r'<a href="/t/rlx-examples/terminal-basics/[^"]+">(.*?)</a>', html, re.S)
    assert sorted(visible_text(row) for row in rows) == sorted(ALL_SIX)


def test_the_file_viewer_highlights_with_line_links_and_a_full_view(indexed_client):
    html = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh").get_data(
        as_text=True)
    assert 'id="L1"' in html and 'href="#L1"' in html and "Full view" in html
    full = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh&view=full")
    assert full.status_code == 200 and 'id="L1"' in full.get_data(as_text=True)
    fragment = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup?f=task.toml",
                                  headers={"HX-Request": "true", "HX-Target": "viewer"}).get_data(as_text=True)
    assert "<html" not in fragment and "task.toml" in fragment


def test_a_withheld_file_is_listed_but_never_served(indexed_client):
    solution = (__import__("tests.conftest", fromlist=["EXAMPLES"]).EXAMPLES / "datasets/rlx-examples/"
                "terminal-basics/tasks/csv-sales-rollup/solution/solve.sh").read_text()
    page = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup?f=solution/solve.sh")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Withheld." in html
    distinctive = max(solution.splitlines(), key=len)
    assert distinctive.strip() and distinctive not in html


ESCAPES = ["../task.toml", "/etc/passwd", "..", "a/../../b", "%2e%2e/x", "..%2fx", "tests\\..\\..\\x",
           "tests/../../../etc/passwd", "\x00", "~/x", "C:\\x", "//etc/passwd", "tests/./../.."]


@pytest.mark.parametrize("path", ESCAPES)
def test_every_path_escape_is_a_404(indexed_client, path):
    base = "/t/rlx-examples/terminal-basics/csv-sales-rollup"
    assert indexed_client.get(base, query_string={"f": path}).status_code == 404
    assert indexed_client.get(base + "/folder", query_string={"p": path}).status_code == 404


def test_unknown_task_and_unknown_dataset_are_404s(indexed_client):
    assert indexed_client.get("/t/rlx-examples/terminal-basics/no-such-task").status_code == 404
    assert indexed_client.get("/d/rlx-examples/no-such-dataset").status_code == 404
    assert indexed_client.get("/d/bad%20org/x").status_code == 404


def test_the_task_json_leaves_out_private_keys(indexed_client):
    body = indexed_client.get("/api/task/rlx-examples/python-bugfix/fix-lru-cache").get_json()
    assert body["ref"] == "fix-lru-cache" and body["sections"]
    assert "_dir" not in repr(body)


@pytest.fixture
def leaky_client(make_config, redis_client, tmp_path):
    """A folder source with one dataset whose task plants answers everywhere (tests/fixtures/answers/task)."""
    root = tmp_path / "source"
    shutil.copytree(FIXTURE_TASK, root / "datasets" / "adv" / "leaky" / "tasks" / "planted")
    (root / "datasets" / "adv" / "leaky" / "README.md").write_text("---\ntags: [harbor]\n---\n# Leaky\n")
    app = create_app(make_config(RLX_SOURCE=str(root)))
    index_now(app, "adv/leaky")
    return app.test_client(), root / "datasets" / "adv" / "leaky" / "tasks"


def test_no_planted_answer_reaches_any_response(leaky_client):
    client, tasks_on_disk = leaky_client
    seen = crawl(client, "adv/leaky", tasks_on_disk)
    for url in ("/", "/d/adv/leaky?q=planted", "/api/search/tasks?q=planted"):
        seen[url] = client.get(url).get_data(as_text=True)
    for url in ("/t/adv/leaky/planted?f=solution/solve.sh", "/t/adv/leaky/planted?f=steps/two/tests/answers.txt",
                "/t/adv/leaky/planted/folder?p=solution", "/t/adv/leaky/planted?f=task.toml&view=full"):
        assert url in seen, "the crawl reaches every file, withheld ones too"
    leaks = [(where, SECRET.findall(body)) for where, body in seen.items() if SECRET.search(body)]
    assert leaks == []
    assert "withheld" in seen["/t/adv/leaky/planted"]


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "null"}, {"Origin": "http://localhost.evil.example"}])
def test_cross_site_posts_change_nothing(indexed_client, headers):
    assert indexed_client.post("/d/rlx-examples/terminal-basics/reindex", headers=headers).status_code == 403
    assert indexed_client.post("/banner/dismiss", headers=headers).status_code == 403


def test_a_search_finding_only_tasks_points_to_them_instead_of_saying_nothing_matches(indexed_client):
    html = indexed_client.get("/?q=durations").get_data(as_text=True).split('id="results"', 1)[1]
    assert "No environment's name or card matches “durations”; the tasks below do." in html
    assert "Try fewer words" not in html
    assert html.index("the tasks below do") < html.index('class="task-matches"')


def test_a_task_s_position_reads_with_thousands_separators_like_the_count(indexed_client, monkeypatch):
    import rlx.web.environments.tasks as task_pages

    def far_down_a_big_dataset(state, ref):
        return None, None, 1315, 1487
    monkeypatch.setattr(task_pages, "_neighbours", far_down_a_big_dataset)
    html = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup").get_data(as_text=True)
    assert "Task 1,315 of 1,487" in html


def test_the_home_page_says_about_only_when_the_task_total_is_an_estimate(indexed_client, monkeypatch):
    import rlx.snapshot.task_search as task_search

    def heading(q):
        html = indexed_client.get(f"/?q={q}").get_data(as_text=True)
        return html.split('class="task-matches"', 1)[1].split("</h3>", 1)[0]
    assert re.search(r"<h3>\d+ tasks? matching", heading("durations"))
    # Every task search of the catalog is now past the exact count (and too broad to read with its scores).
    monkeypatch.setattr(task_search, "COUNT_CAP", 0)
    monkeypatch.setattr(task_search, "RANK_LIMIT", 0)
    assert re.search(r"<h3>About \d+ tasks? matching", heading("duration"))


def test_a_task_page_leads_to_its_leaderboard_and_your_runs(indexed_client):
    """Rollouts are gathered on the environment's leaderboard and on "Your runs": a task page links to both where it
    lists the task's rollouts, so neither is found only through the footer."""
    html = indexed_client.get("/t/rlx-examples/terminal-basics/csv-sales-rollup").get_data(as_text=True)
    rollouts = html[html.index('id="rollouts"'):]
    rollouts = rollouts[:rollouts.index("</section>")]
    assert 'href="/community/rlx-examples/terminal-basics"' in rollouts and 'href="/runs/mine"' in rollouts
