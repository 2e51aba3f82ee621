"""Answers hidden where real datasets hide them, crawled as a visitor would: a task inside another task's folder,
a generator beside task.toml, a grader's docstrings and comments, a task.toml description; on pages, in JSON,
search answers, the snapshot and over MCP. Every planted
ZX-ANSWER string is an answer; every KEEP-ME string is harmless and must stay in sight."""

import json
import re
import shutil
from pathlib import Path

import pytest

from rlx import create_app
from rlx.adapters.harbor import discover
from tests.conftest import index_now
from tests.crawl import crawl, sqlite_text
from tests.mcp.test_mcp_protocol import initialize, post, rpc

FIXTURES = Path(__file__).parents[1] / "fixtures"
CORNERS = FIXTURES / "corners" / "tasks"
SECRET = re.compile(r"ZX-ANSWER-\d{4}")
DATASET = "adv/corners"


def _corners_app(make_config, tmp_path):
    root = tmp_path / "source"
    shutil.copytree(CORNERS, root / "datasets" / "adv" / "corners" / "tasks")
    shutil.copytree(FIXTURES / "answers" / "task", root / "datasets" / "adv" / "corners" / "tasks" / "planted")
    (root / "datasets" / "adv" / "corners" / "README.md").write_text("---\ntags: [harbor]\n---\n# Corners\n")
    app = create_app(make_config(RLX_SOURCE=str(root)))
    index_now(app, DATASET)
    return app, root / "datasets" / "adv" / "corners" / "tasks"


@pytest.fixture
def corners(make_config, redis_client, tmp_path):
    return _corners_app(make_config, tmp_path)


@pytest.fixture
def walked_corners(make_config, redis_client, tmp_path, monkeypatch):
    """The same dataset read the way a huge repository is: walked level by level, task folders never listed."""
    monkeypatch.setattr(discover, "MAX_LISTED_FILES", 0)
    return _corners_app(make_config, tmp_path)


def test_the_fixtures_plant_answers_in_every_corner():
    text = {p.relative_to(CORNERS).as_posix(): p.read_text() for p in CORNERS.rglob("*") if p.is_file()}
    planted = {path for path, body in text.items() if SECRET.search(body)}
    for where in ("suite/inner/solution/solve.sh", "suite/inner/tests/expected_output.txt", "generator/build_assets.py",
                  "generator/events.json", "receipts/tests/test_receipts.py", "shell-comment/tests/test.sh",
                  "described/task.toml"):
        assert where in planted
    assert len(set(SECRET.findall("\n".join(text.values())))) >= 20


def test_a_task_inside_another_task_is_a_task_of_its_own(corners):
    app, _ = corners
    client = app.test_client()
    env = client.get(f"/api/env/{DATASET}").get_json()
    for ref in ("suite", "suite/inner", "suite/inner/deeper"):
        page = client.get(f"/t/{DATASET}/{ref}")
        assert page.status_code == 200, ref
    assert "KEEP-ME-inner-instruction" in client.get(f"/t/{DATASET}/suite/inner").get_data(as_text=True)
    assert env["tasks"] == 8
    outer = client.get(f"/t/{DATASET}/suite").get_data(as_text=True)
    assert f'href="/t/{DATASET}/suite/inner"' in outer and "a task of its own" in outer
    link = re.search(r'<li class="([^"]*)"[^>]*>\s*<a class="fname" href="/t/adv/corners/suite/inner">', outer)
    assert link and "withheld" not in link.group(1), "the link is not drawn struck through like a withheld file"
    inner = client.get(f"/t/{DATASET}/suite/inner").get_data(as_text=True)
    assert f'href="/t/{DATASET}/suite/inner/deeper"' in inner
    # The outer task's viewer does not serve the inner task's files; the inner task withholds them itself.
    assert client.get(f"/t/{DATASET}/suite?f=inner/tests/expected_output.txt").status_code == 404
    own = client.get(f"/t/{DATASET}/suite/inner?f=tests/expected_output.txt").get_data(as_text=True)
    assert "Withheld." in own


def test_files_beside_task_toml_are_judged_like_grader_files(corners):
    app, _ = corners
    client = app.test_client()
    base = f"/t/{DATASET}/generator"
    generator = client.get(base + "?f=build_assets.py").get_data(as_text=True)
    assert "KEEP-ME-seed" in generator and "KEEP-ME-kind" in generator and "EXPECTED_IDS" in generator
    assert not SECRET.search(generator)
    for data in ("events.json", "assets/window.txt"):
        shown = client.get(f"{base}?f={data}").get_data(as_text=True)
        assert "generated data and its inputs often hold the answers" in shown, data
    page = client.get(base).get_data(as_text=True)
    assert "generated data and its inputs often hold the answers" in page  # the reason is shown with the list


def test_grader_prose_and_metadata_lose_the_answer_and_keep_the_rest(corners):
    app, _ = corners
    client = app.test_client()
    receipts = client.get(f"/t/{DATASET}/receipts?f=tests/test_receipts.py").get_data(as_text=True)
    assert "Gold: ‹withheld›" in receipts and "KEEP-ME-comment" in receipts and "KEEP-ME-loop" in receipts
    shell = client.get(f"/t/{DATASET}/shell-comment?f=tests/test.sh").get_data(as_text=True)
    assert "The expected code is ‹withheld›" in shell and "KEEP-ME-compare" in shell
    described = client.get(f"/api/task/{DATASET}/described").get_json()
    metadata = next(s for s in described["sections"] if s["id"] == "metadata")
    text = str(metadata)
    assert "KEEP-ME-described" in text and "KEEP-ME-crypto" in text and "‹withheld›" in text
    rows = client.get(f"/d/{DATASET}?q=recover").get_data(as_text=True)
    assert "Recover ‹withheld›" in rows


def _assert_no_answer_anywhere(app, tasks_on_disk):
    client = app.test_client()
    seen = crawl(client, DATASET, tasks_on_disk)
    for url in ("/", "/?q=corners", "/?q=recover", "/api/search?q=corners", "/api/search/tasks?q=recover",
                f"/api/search/tasks?env={DATASET}", "/api/search/tasks?q=ZX-ANSWER-1401", "/api/search/tasks?q=ZX"):
        response = client.get(url)
        assert response.status_code == 200, url
        seen[url] = response.get_data(as_text=True)
    seen.update(_mcp_answers(client, tasks_on_disk))
    seen.update(sqlite_text(tasks_on_disk.parents[4]))  # the test's whole folder: the store and every cache
    leaks = {where: sorted(set(SECRET.findall(body))) for where, body in seen.items() if SECRET.search(body)}
    assert leaks == {}
    return seen


def _mcp_answers(client, tasks_on_disk) -> dict[str, str]:
    """What a coding agent reads over MCP: every tool, every task, every file on disk through every task holding it."""
    url = f"/mcp/d/{DATASET}"
    session, _ = initialize(client, url=url)
    refs = sorted(p.parent.relative_to(tasks_on_disk).as_posix() for p in tasks_on_disk.rglob("task.toml"))
    calls = [("describe", {}), ("list_tasks", {"page_size": 100}), ("search_tasks", {"query": "recover"}),
             ("random_task", {})]
    for ref in refs:
        calls.append(("get_task", {"ref": ref}))
        task = tasks_on_disk / ref
        calls += [("read_file", {"ref": ref, "path": p.relative_to(task).as_posix()})
                  for p in sorted(task.rglob("*")) if p.is_file()]
    seen = {}
    for number, (name, arguments) in enumerate(calls, 1):
        body = post(client, rpc("tools/call", number, name=name, arguments=arguments), session, url=url).get_json()
        assert "result" in body, (name, arguments, body)
        seen[f"mcp {name} {json.dumps(arguments)}"] = json.dumps(body["result"], ensure_ascii=False)
    # Searching for an answer finds nothing (the reply repeats the words asked, so only its tasks are checked).
    asked = post(client, rpc("tools/call", 0, name="search_tasks", arguments={"query": "ZX-ANSWER-1401"}), session,
                 url=url).get_json()["result"]
    assert asked["structuredContent"]["tasks"] == []
    return seen


def test_no_planted_answer_reaches_any_page_json_search_or_snapshot(corners):
    app, tasks_on_disk = corners
    seen = _assert_no_answer_anywhere(app, tasks_on_disk)
    pages = [url for url in seen if url.startswith(f"/t/{DATASET}/")]
    assert len(pages) >= 150, "the crawl reached every task's files"
    assert any("?f=build_assets.py&view=full" in url for url in pages)
    assert any(url.startswith(f"/t/{DATASET}/suite/inner/deeper") for url in pages)
    snapshot = "\n".join(body for where, body in seen.items() if where.startswith("sqlite:"))
    assert "Recover ‹withheld›" in snapshot and "KEEP-ME-described" in snapshot, "the snapshot holds the tasks"
    task_text = seen['mcp get_task {"ref": "generator"}']
    assert "KEEP-ME-generator-instruction" in task_text and "generated data and its inputs" in task_text
    assert "KEEP-ME-seed" in seen['mcp read_file {"ref": "generator", "path": "build_assets.py"}']
    found = json.loads(seen["/api/search/tasks?q=recover"])["tasks"]
    assert [task["title"] for task in found] == ["Recover ‹withheld›"]


def test_a_walked_repository_withholds_nested_answers_too(walked_corners):
    app, tasks_on_disk = walked_corners
    client = app.test_client()
    assert client.get(f"/api/env/{DATASET}").get_json()["tasks"] == 6  # the walk does not look inside tasks
    listing = client.get(f"/t/{DATASET}/suite/folder?p=inner/tests").get_data(as_text=True)
    assert "expected_output.txt" in listing and "withheld" in listing
    _assert_no_answer_anywhere(app, tasks_on_disk)
