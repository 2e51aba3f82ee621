"""Real datasets in shapes our first fixtures lacked (tests/fixtures/fidelity): older Terminal-Bench tasks, steps
with their own timeouts, compose environments, an empty dataset, a card full of badges, whole numbers."""

import html as htmllib
import re
from pathlib import Path

import pytest

from rlx import create_app
from rlx.sources.folder import FolderSource
from tests.conftest import index_now

FIXTURES = Path(__file__).parents[1] / "fixtures" / "fidelity"
DATASETS = ("fidelity/tb1-suite", "fidelity/stepwise", "fidelity/compose-stack", "fidelity/long-names",
            "fidelity/no-tasks")
SECRET = re.compile(r"ZX-ANSWER-\d{4}")


@pytest.fixture
def fidelity_app(make_config, redis_client):
    app = create_app(make_config(RLX_SOURCE=str(FIXTURES)))
    for repo_id in DATASETS:
        index_now(app, repo_id)
    return app


@pytest.fixture
def client(fidelity_app):
    return fidelity_app.test_client()


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def text_of(html: str) -> str:
    """What a reader sees: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def pairs_after(html: str, heading: str) -> str:
    """The visible text of the page from `heading` on."""
    return text_of(html[html.index(heading):])


# Item 8: older Terminal-Bench tasks -------------------------------------------------------------------------


def test_an_old_format_suite_lists_every_task(client):
    html = page(client, "/d/fidelity/tb1-suite")
    assert html.count('class="task-row') == 3
    for ref in ("count-words", "db-migrate", "oldest-descriptions"):
        assert f"/t/fidelity/tb1-suite/{ref}" in html
    assert "No task matches" not in html and "No tasks in this dataset" not in html


def test_an_old_format_task_reads_as_the_agent_gets_it_and_as_it_is_graded(client):
    html = page(client, "/t/fidelity/tb1-suite/count-words")
    shown = text_of(html)
    assert "Count the words in /app/notes.txt and write the count to /app/count.txt." in shown
    assert "Could not read this task" not in shown
    grading = pairs_after(html, "How it is graded")
    assert "pass or fail: every test the pytest parser reads from run-tests.sh's output must pass" in grading
    assert "Verifier timeout 45 s" in grading
    assert "Verifier runs in a fresh shell in the agent's container, after the agent" in grading
    assert "Runs the word-count checks with pytest" in grading  # run-tests.sh itself, shown
    assert "EXPECTED_COUNT = ‹withheld›" in grading  # with the answer it holds masked
    environment = pairs_after(html, "What it runs in")
    assert "Runs in an image built from its Dockerfile" in environment  # one client container: the Dockerfile
    assert "Agent timeout 4 min" in environment
    assert "FROM python:3.12-slim" in environment
    metadata = pairs_after(html, "Metadata")
    assert "Format Terminal-Bench 1 (task.yaml)" in metadata and "Difficulty easy" in metadata
    assert "can't run here" in shown and "older Terminal-Bench format" in shown


def test_the_oldest_descriptions_list_gives_its_base_prompt(client):
    shown = text_of(page(client, "/t/fidelity/tb1-suite/oldest-descriptions"))
    assert "Print the kernel release to /app/release.txt." in shown
    assert "without using uname" not in shown.split("How it is graded")[0]  # the "hard" variant is not the prompt
    assert "no run-tests.sh" in shown


def test_an_old_format_task_with_several_services_is_compose(client):
    html = page(client, "/t/fidelity/tb1-suite/db-migrate")
    environment = pairs_after(html, "What it runs in")
    assert "Runs in 3 containers started with docker-compose (docker-compose.yaml)" in environment
    assert "client built from ./Dockerfile (the agent's container)" in environment
    assert "does not start. It is in the older Terminal-Bench format" in environment  # reasons read as sentences
    assert "db built from ./db; ports 5432:5432" in environment
    assert "cache image redis:7-alpine; ports 6379 (internal)" in environment
    assert "Verifier runs in the agent's own shell session" in pairs_after(html, "How it is graded")


def test_no_answer_of_any_fixture_reaches_any_page(client):
    """Every page, JSON answer, listed file (plain and full view) and folder of every fixture dataset."""
    seen = [("/", page(client, "/"))]
    for repo_id in DATASETS:
        org, name = repo_id.split("/")
        env_html = page(client, f"/d/{repo_id}")
        seen += [(f"/d/{repo_id}", env_html), ("api", page(client, f"/api/env/{repo_id}"))]
        for ref in sorted(set(re.findall(rf'href="/t/{org}/{name}/([^"?#]+)"', env_html))):
            task_url = f"/t/{repo_id}/{ref}"
            task_html = page(client, task_url)
            seen += [(task_url, task_html), ("api", page(client, f"/api/task/{repo_id}/{ref}"))]
            files = set(re.findall(rf'href="{re.escape(task_url)}\?f=([^"#&]+)', task_html))
            for path in files | {"solution.sh", "solution.yaml", "tests/expected.txt", "solution/solve.sh",
                                 "steps/load/solution/solve.sh", "task.yaml", "run-tests.sh"}:
                for extra in ("", "&view=full"):
                    seen.append((f"{task_url}?f={path}", client.get(f"{task_url}?f={path}{extra}").get_data(
                        as_text=True)))
            for folder in ("", "tests", "steps/load", "solution"):
                seen.append((folder, client.get(f"{task_url}/folder", query_string={"p": folder}).get_data(
                    as_text=True)))
    assert len(seen) > 60
    leaks = [(where, SECRET.findall(body)) for where, body in seen if SECRET.search(body)]
    assert leaks == []
    count_words = page(client, "/t/fidelity/tb1-suite/count-words")
    for withheld in ("solution.sh", "expected.txt"):
        assert re.search(rf'{re.escape(withheld)}</span> <span class="badge"[^>]*>withheld', count_words), withheld
    assert "expected_count" in text_of(count_words)  # the page says which key it withheld


# Item 8: a dataset with no task says so ---------------------------------------------------------------------


def test_a_dataset_without_tasks_says_what_was_found_instead_of_no_match(client):
    shown = text_of(page(client, "/d/fidelity/no-tasks"))
    assert "No tasks in this dataset." in shown
    assert "No folder in this repository holds a task.toml (a Harbor task) or a task.yaml" in shown
    assert "3 files were listed, and none of them is a task file" in shown  # README.md, data.csv, docs/notes.md
    assert "No task matches" not in shown and "fewer filters" not in shown


def test_a_filter_that_matches_nothing_still_says_no_match(client):
    shown = text_of(page(client, "/d/fidelity/tb1-suite?q=no-such-words-anywhere"))
    assert "No task matches." in shown and "No tasks in this dataset" not in shown


# Item 9: steps with their own timeouts and graders ----------------------------------------------------------


def steps_of(html: str) -> list[str]:
    """The visible text of each step of the task's steps list."""
    listing = html[html.index('<ol class="steps">'):]
    listing = listing[:listing.index("</ol>")]
    return [text_of(part) for part in listing.split("<li>")[1:]]


def test_each_step_shows_its_instruction_timeouts_and_grader(client):
    html = page(client, "/t/fidelity/stepwise/ledger-repair")
    load, reconcile = steps_of(html)
    assert load.startswith("Step 1: load") and "Load /app/raw.txt into /app/ledger.csv" in load
    assert "Agent timeout 45 s" in load and "Verifier timeout 30 s" in load
    assert "Continues only if reward ≥ 1" in load and "LEDGER_PATH" in load
    assert "Graded by steps/load/tests/test.sh" in load and "one row per input line" in load
    assert reconcile.startswith("Step 2: reconcile") and "Reconcile /app/ledger.csv" in reconcile
    assert "Agent timeout 20 min (the task's)" in reconcile and "Verifier timeout 90 s" in reconcile
    assert "Graded by tests/test.sh" in reconcile and "Shared grader" in reconcile
    grading = pairs_after(html, "How it is graded")
    assert "Verifier timeout per step" in grading and "Verifier timeout 10 min" not in grading
    assert "Task reward the last step's reward" in grading
    assert "Agent timeout per step" in pairs_after(html, "What it runs in")


# Item 10: compose environments ------------------------------------------------------------------------------


def test_a_compose_task_is_counted_and_labelled_as_compose_with_its_services(client):
    env_html = page(client, "/d/fidelity/compose-stack")
    assert re.search(r'href="[^"]*f=runtime(%3A|:)compose', env_html)
    assert not re.search(r'href="[^"]*f=runtime(%3A|:)dockerfile', env_html)
    html = page(client, "/t/fidelity/compose-stack/api-cache")
    environment = pairs_after(html, "What it runs in")
    assert "an image built from its Dockerfile" not in environment
    assert "Runs in 3 containers started with docker-compose (environment/docker-compose.yaml)" in environment
    assert "main as Harbor makes it (the agent's container)" in environment
    assert "api built from ./api; ports 8080:8080" in environment
    assert "cache image redis:7-alpine; ports 16379:6379" in environment
    assert "It cannot run here: it runs as several containers with docker-compose (main, api, cache)" in environment
    assert "This task can run in this machine's sandbox" not in environment


# Item 11: the small things ----------------------------------------------------------------------------------


def test_whole_numbers_of_cpus_read_as_harbor_writes_them(client):
    for url in ("/t/fidelity/compose-stack/api-cache", "/t/fidelity/stepwise/ledger-repair"):
        environment = pairs_after(page(client, url), "What it runs in")
        assert "CPUs 2 " in environment and "2.0" not in environment


def test_a_card_with_badges_and_entities_reads_as_plain_text(client):
    record = FolderSource(FIXTURES).repo_info("dataset", "fidelity/long-names")
    expected = "Tasks with very long names, for checking that pages wrap them at any width."
    assert record.card["description"] == expected
    home = page(client, "/")
    summary = re.search(r'card-id">fidelity/long-names</span>.*?<p class="card-summary">(.*?)</p>', home,
                        re.S).group(1)
    assert htmllib.unescape(summary) == expected
    assert "![" not in home and "nbsp" not in home and "img.shields.io" not in home


def test_progress_says_a_step_is_running_while_it_runs(make_config, running_worker, redis_client):
    """The index job holds its first step open; the panel must say running, not waiting, until it moves on."""
    from rq import Queue

    from rlx.jobs.index import index_job_id
    from tests.queue.test_index_job import wait_until

    app = create_app(make_config(RLX_SOURCE=str(FIXTURES)))  # nothing indexed: the page shows the job
    revision = FolderSource(FIXTURES).repo_info("dataset", "fidelity/stepwise").sha
    job = Queue("index", connection=redis_client).enqueue(
        "tests.jobs_for_tests.hold_first_step", job_id=index_job_id("fidelity/stepwise", revision))
    try:
        assert wait_until(lambda: job.refresh() or job.meta.get("progress") is not None, timeout=30)
        panel = text_of(page(app.test_client(), "/d/fidelity/stepwise/progress"))
        assert "Listing the repository running…" in panel
        assert "Listing the repository waiting" not in panel and "Fetching task files waiting" in panel
    finally:
        redis_client.rpush("tests:release", "go")


def test_a_walked_old_format_suite_finds_and_reads_every_task(tmp_path, monkeypatch):
    """A repository too big to list is walked level by level: task.yaml folders are tasks there too."""
    from rlx.adapters import Env
    from rlx.adapters.harbor import discover
    from rlx.adapters.harbor.adapter import HarborAdapter
    from rlx.store import Store

    source = FolderSource(FIXTURES)
    env = Env(source.repo_info("dataset", "fidelity/tb1-suite"), source, Store(tmp_path))
    monkeypatch.setattr(discover, "LISTING_BUDGET_S", 0.0)  # too slow to list: walk
    adapter = HarborAdapter()
    index = adapter.build_index(env)
    assert index.summary["walked"] is True
    rows = {row.ref: row for row in index.rows}
    assert set(rows) == {"count-words", "db-migrate", "oldest-descriptions"}
    assert all(row.error is None for row in rows.values())
    assert rows["db-migrate"].facets["runtime"] == "compose" and rows["count-words"].facets["runtime"] == "dockerfile"
    view = adapter.task(env, index, "count-words")
    files = {entry["path"]: entry["withheld"] for entry in view.sections[-1].blocks[0].data["entries"]}
    assert files["solution.sh"] and not files["run-tests.sh"]
    assert "Count the words" in view.sections[0].blocks[0].data["text"]


def test_task_yaml_is_shown_as_written_but_for_its_answer_keys(client):
    raw = (FIXTURES / "datasets/fidelity/tb1-suite/tasks/count-words/task.yaml").read_text()
    viewer = page(client, "/t/fidelity/tb1-suite/count-words?f=task.yaml&view=full")
    shown = text_of(viewer)
    assert "expected: one line, digits only." in shown  # the prompt's own words, inside its block, stay
    assert re.search(r"expected_count\s*:\s*\"?‹withheld›", shown)
    assert f'id="L{len(raw.splitlines())}"' in viewer and f'id="L{len(raw.splitlines()) + 1}"' not in viewer
