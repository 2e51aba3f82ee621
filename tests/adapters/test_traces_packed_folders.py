"""The three bundled formats added last, as a visitor sees them: agent traces (recorded runs, so listed as rollouts,
never as tasks: turns, tool calls beside their outputs, the result), Harbor tasks packed into parquet (shown as the same tasks in their folders are, answers
withheld alike, files in the viewer), and a repository of task folders without task.toml. Every page of each is
crawled for the answers planted in the fixtures."""

import html as html_module
import re
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, index_now
from tests.crawl import crawl

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
TRACES, PACKED, KATAS = "rlx-examples/agent-traces", "rlx-examples/packed-harbor-tasks", "rlx-examples/shell-katas"
FOLDERS = EXAMPLES / "datasets" / "rlx-examples"
TERMINAL = sorted((FOLDERS / "terminal-basics" / "tasks").iterdir())


@pytest.fixture(scope="module")
def more_app(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config

    config = Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                              "SESSION_SECRET": "x", "RLX_SOURCE": str(EXAMPLES)})
    app = create_app(config)
    for repo_id in (TRACES, PACKED, KATAS, "rlx-examples/terminal-basics", "rlx-examples/science-puzzles"):
        index_now(app, repo_id)
    return app


@pytest.fixture(scope="module")
def client(more_app):
    return more_app.test_client()


def text_of(html: str) -> str:
    html = re.sub(r"(?s)<(style|script)[^>]*>.*?</\1>", " ", html)
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("repo_id, adapter, processor", [(PACKED, "rows", "packed-harbor"),
                                                         (KATAS, "task-folders", None)])
def test_each_new_example_is_read_in_its_format(more_app, repo_id, adapter, processor):
    from rlx.adapters.indexes import load_index

    index = load_index(more_app.extensions["rlx.store"], repo_id)
    assert index.adapter == adapter and index.summary.get("processor") == processor
    assert index.rows and not any(row.error for row in index.rows)


# Agent traces: recorded runs, so rollouts, never tasks


def test_a_dataset_of_traces_lists_its_runs_as_rollouts_and_no_task(more_app, client):
    from rlx.adapters.indexes import load_index

    index = load_index(more_app.extensions["rlx.store"], TRACES)
    assert index.summary["processor"] == "traces" and index.rows == []
    files = index.summary["rollouts"]
    assert [(f["path"], f["format"], len(f["traces"])) for f in files] == [("data/train.jsonl", "traces", 6)]
    page = text_of(client.get(f"/d/{TRACES}").get_data(as_text=True))
    assert "This repository holds recorded runs, not tasks" in page and "Traces 6 in 1 file" in page
    assert "No tasks in this dataset" not in page and "Search 0 tasks" not in page and "Health" not in page
    assert client.get(f"/t/{TRACES}/train/0").status_code == 404  # a run is not a task
    assert TRACES not in {t["env_id"] for t in client.get("/api/search/tasks?q=umbrella").get_json()["tasks"]}


def test_a_trace_shows_the_prompt_each_call_beside_its_output_and_the_result(client):
    page = text_of(client.get(f"/d/{TRACES}/rollouts/0/1").get_data(as_text=True))
    assert "What the agent got" in page and "Should I pack an umbrella for Bergen today?" in page
    call = page.index("calls get_forecast")
    assert page.index("get_forecast returned") > call and '{"rain_chance": 80}' in page[call:call + 300]
    assert 'get_weather returned 1 {"temp_c": 9, "sky": "rain"}' in page
    assert "Reward 1.0" in page and "Success yes" in page  # the columns, labelled
    # listed as withheld, by name only: the answer by its name, the fields beside the trace as not drawn
    assert "final_answer : its name marks it" in page and "metadata : a field of the rollout record" in page
    assert "success : a field" not in page  # drawn under The result, so not said to be left out
    assert not SECRET.search(page)


def test_the_traces_are_read_over_the_json_api_and_mcp_alike(client):
    listed = client.get(f"/api/env/{TRACES}/rollouts").get_json()
    assert [t["title"][:32] for t in listed["files"][0]["traces"]][:2] == [
        "Should I pack an umbrella for Li", "Should I pack an umbrella for Be"]
    one = client.get(f"/api/env/{TRACES}/rollouts/0/1").get_json()
    assert one["path"] == "data/train.jsonl" and {"task", "trace", "result"} <= {s["id"] for s in one["sections"]}
    assert not SECRET.search(str(one)) and not SECRET.search(str(listed))
    assert client.get(f"/api/env/{TRACES}/rollouts/0/99").status_code == 404
    assert client.get(f"/api/env/{PACKED}/rollouts").get_json()["files"] == []


def _trace_text(record: dict) -> str:
    from rlx.adapters.blocks import to_text
    from rlx.adapters.rollouts import trace_sections
    from rlx.adapters.rollouts.formats import to_trace

    trace = to_trace("traces", record)
    assert trace is not None, record
    sections, _ = trace_sections(trace)
    return "\n".join(to_text(b) for s in sections for b in s.blocks)


def test_tool_outputs_pair_with_their_calls_by_id_whatever_their_order():
    from rlx.adapters.rows.processors.traces import turns

    messages = [{"role": "user", "content": "two lookups"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "a", "function": {"name": "first", "arguments": "{}"}},
                    {"id": "b", "function": {"name": "second", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "b", "content": "OUT-OF-SECOND"},
                {"role": "tool", "tool_call_id": "a", "content": "OUT-OF-FIRST"}]
    calls = [(call["name"], call["output"]) for turn in turns(messages) for call in turn["calls"]]
    assert calls == [("first", "OUT-OF-FIRST"), ("second", "OUT-OF-SECOND")]
    text = _trace_text({"messages": messages, "answer": "ZX-ANSWER-9000"})
    assert text.index("first returned") < text.index("OUT-OF-FIRST") < text.index("calls second")
    assert "ZX-ANSWER-9000" not in text


def test_sharegpt_and_step_traces_read_too():
    from rlx.adapters.rows.processors.traces import TraceProcessor

    sharegpt = {"conversations": [{"from": "human", "value": "list files"},
                                  {"from": "function_call", "value": '{"name": "ls", "arguments": {"path": "."}}'},
                                  {"from": "observation", "value": "README.md"},
                                  {"from": "gpt", "value": "There is one file."}]}
    steps = {"trajectory": [{"thought": "look around", "action": "ls -la", "observation": "total 0"}],
             "resolved": False}
    for row, shown in ((sharegpt, ["ls returned", "README.md"]), (steps, ["action returned", "total 0"])):
        assert TraceProcessor().claim(list(row), [row]) >= 0.9
        text = _trace_text(row)
        assert all(words in text for words in shown), text


# Packed Harbor


def _view_json(client, url):
    data = client.get(url).get_json()
    sections = {s["id"]: s for s in data["sections"]}
    return data, sections


@pytest.mark.parametrize("i, folder", list(enumerate(TERMINAL)), ids=[d.name for d in TERMINAL])
def test_a_packed_task_reads_as_its_folder_does_answers_withheld_alike(client, i, folder):
    packed, packed_sections = _view_json(client, f"/api/task/{PACKED}/train/{i}")
    plain, plain_sections = _view_json(client, f"/api/task/rlx-examples/terminal-basics/{folder.name}")
    assert packed["title"] == plain["title"] == folder.name
    for section in ("task", "grading"):
        assert packed_sections[section] == plain_sections[section], section
    # Alike but for one line: a packed task is read, never run (runs start from a task folder), and says so.
    notes = lambda blocks: [b for b in blocks if b["kind"] == "note"]  # noqa: E731
    packed_env, plain_env = packed_sections["environment"]["blocks"], plain_sections["environment"]["blocks"]
    assert [b for b in packed_env if b["kind"] != "note"] == [b for b in plain_env if b["kind"] != "note"]
    assert [n["data"]["text"] for n in notes(packed_env)] == [
        "It cannot run here: it is packed in a table's cell, and a run starts from a task folder."]
    assert "can&#39;t run here" in client.get(f"/t/{PACKED}/train/{i}").get_data(as_text=True)  # its chip
    assert packed["withheld"] == plain["withheld"] and packed["withheld"]
    assert any(w["where"].startswith("solution") for w in packed["withheld"])


def test_the_file_viewer_opens_a_packed_tasks_files_as_the_folders_viewer_does(more_app):
    from rlx.adapters import Env, get

    source, store = more_app.extensions["rlx.source"], more_app.extensions["rlx.store"]
    with more_app.app_context():
        rows, harbor = get("rows"), get("harbor")
        from rlx.adapters.indexes import load_index

        packed_env = Env(source.repo_info("dataset", PACKED), source, store)
        plain_env = Env(source.repo_info("dataset", "rlx-examples/terminal-basics"), source, store)
        packed_index, plain_index = load_index(store, PACKED), load_index(store, "rlx-examples/terminal-basics")
        for i, folder in enumerate(TERMINAL):
            paths = [p.relative_to(folder).as_posix() for p in sorted(folder.rglob("*")) if p.is_file()]
            for path in paths:
                mine = rows.read_file(packed_env, packed_index, f"train/{i}", path)
                theirs = harbor.read_file(plain_env, plain_index, folder.name, path)
                assert (mine.text, mine.withheld, mine.binary) == (theirs.text, theirs.withheld, theirs.binary), path
            assert rows.list_folder(packed_env, packed_index, f"train/{i}", "") == \
                harbor.list_folder(plain_env, plain_index, folder.name, "")
            assert rows.read_file(packed_env, packed_index, f"train/{i}", "no/such/file") is None


def test_a_zipped_task_inside_a_folder_of_its_name_reads_too(client):
    page = text_of(client.get(f"/t/{PACKED}/test/0?f=instruction.md").get_data(as_text=True))
    assert "molar-mass-table" in page and "molar-mass table" in page
    withheld = text_of(client.get(f"/t/{PACKED}/test/0?f=solution/solve.sh").get_data(as_text=True))
    assert "Reference solutions are withheld" in withheld


def _withheld_lines(task_dirs: list[Path]) -> set[str]:
    """Distinctive lines of every solution file: none may appear on any page."""
    lines = set()
    for task in task_dirs:
        for path in (task / "solution").rglob("*"):
            if path.is_file():
                lines |= {ln.strip() for ln in path.read_text().splitlines() if len(ln.strip()) > 25
                          and not ln.strip().startswith(("#", "set -", "cd ", "mkdir"))}
    return lines


# Task folders without task.toml


def test_task_folders_list_each_kata_with_its_instruction_and_grader(client):
    html = text_of(client.get(f"/d/{KATAS}").get_data(as_text=True))
    for name in ("word-frequency", "rot13", "json-merge"):
        assert name in html
    rot13 = text_of(client.get(f"/t/{KATAS}/katas/rot13").get_data(as_text=True))
    assert "Implement rot13(text: str) -> str" in rot13 and "grader.py" in rot13
    assert "answers.json" in rot13 and "withheld" in rot13
    merge = text_of(client.get(f"/t/{KATAS}/katas/json-merge").get_data(as_text=True))
    assert "Deep-merge two JSON files" in merge and "tests/fixtures/gold.json" in merge
    starter = text_of(client.get(f"/t/{KATAS}/katas/rot13?f=starter/rot13.py").get_data(as_text=True))
    assert "raise NotImplementedError" in starter
    key = text_of(client.get(f"/t/{KATAS}/katas/rot13?f=answers.json").get_data(as_text=True))
    assert "Uryyb" not in key and "withheld" in key


# Every page, crawled


@pytest.mark.parametrize("repo_id", [TRACES, PACKED, KATAS])
def test_no_planted_answer_on_any_page_file_or_json(client, repo_id):
    on_disk = FOLDERS / "shell-katas" if repo_id == KATAS else None  # every file asked for, withheld ones too
    pages = crawl(client, repo_id, on_disk)
    opened = [u for u in pages if u.startswith((f"/t/{repo_id}/", f"/d/{repo_id}/rollouts/0/")) and "?" not in u]
    assert len(opened) >= 3
    if repo_id == TRACES:
        for url in (f"/api/env/{TRACES}/rollouts", *(f"/api/env/{TRACES}/rollouts/0/{i}" for i in range(6))):
            pages[url] = client.get(url).get_data(as_text=True)
    if repo_id == KATAS:
        assert f"/t/{KATAS}/katas/rot13?f=cases.txt" in pages and f"/t/{KATAS}/katas/rot13?f=answers.json" in pages
    if repo_id == PACKED:  # withheld files are not linked: ask for each solution by name too
        for i in range(len(TERMINAL)):
            url = f"/t/{PACKED}/train/{i}?f=solution/solve.sh"
            pages[url] = client.get(url).get_data(as_text=True)
    solutions = _withheld_lines(TERMINAL)
    for url, body in pages.items():
        assert not SECRET.search(body), url
        if repo_id == PACKED:
            leaked = [line for line in solutions if line in body]
            assert not leaked, (url, leaked[:2])
    assert client.get("/api/search/tasks?q=ZX-ANSWER").get_json()["total"] == 0


@pytest.mark.parametrize("words, repo_id", [("molar", PACKED), ("rot13", KATAS)])
def test_task_search_finds_each_formats_tasks(client, words, repo_id):
    found = client.get(f"/api/search/tasks?q={words}").get_json()["tasks"]
    assert repo_id in {t["env_id"] for t in found}


def test_kind_chips_count_packed_tasks_as_harbor_and_task_folders_as_other(client):
    kinds = dict(client.get("/api/search").get_json()["facets"]["kind"])
    assert kinds["other"] >= 1 and "task-folders" not in kinds
    harbor = {c["id"] for c in client.get("/api/search?kind=harbor&size=100").get_json()["cards"]}
    assert PACKED in harbor and KATAS not in harbor


def test_the_packed_example_is_what_the_build_script_writes(tmp_path):
    import subprocess
    import sys

    subprocess.run([sys.executable, str(EXAMPLES / "_build" / "make_packed_and_traces.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    for written in tmp_path.rglob("*.*"):
        committed = FOLDERS / written.relative_to(tmp_path)
        assert committed.read_bytes() == written.read_bytes(), committed


@pytest.mark.parametrize("row", [
    {"messages": "not a list"},
    {"messages": [1, 2]},
    {"messages": [{"role": "assistant", "tool_calls": "garbage"}]},
    {"messages": [{"role": "tool", "content": "an output no call asked for"}]},
    {"messages": [{"role": "assistant", "content": None, "tool_calls": [{"id": 5, "function": "x"}]}]},
    {"messages": [{"role": "user", "content": [{"type": "image"}]}], "reward": {"a": [1]}},
])
def test_a_malformed_trace_is_no_trace_or_a_page_never_an_error(row):
    import json

    from rlx.adapters import public
    from rlx.adapters.contract import TaskView
    from rlx.adapters.rollouts import trace_sections
    from rlx.adapters.rollouts.formats import to_trace

    trace = to_trace("traces", row)
    if trace is not None:  # a record without turns is listed as "(no turns)" by the file's page
        sections, withheld = trace_sections(trace)
        json.dumps(public(TaskView(ref="0/0", title="t", sections=sections, withheld=withheld)))


def test_a_katas_own_files_show_in_the_viewer_and_its_graders_data_does_not(client):
    poem = text_of(client.get(f"/t/{KATAS}/katas/word-frequency?f=workspace/poem.txt").get_data(as_text=True))
    assert "French coast the light gleams" in poem
    listing = client.get(f"/t/{KATAS}/katas/word-frequency/folder?p=tests").get_data(as_text=True)
    assert "expected_output.txt" in listing and "withheld" in listing
    cases = text_of(client.get(f"/t/{KATAS}/katas/rot13?f=cases.txt").get_data(as_text=True))
    assert "Uryyb" not in cases and "withheld" in cases.lower()


def test_a_trace_labels_its_chips_and_numbers_its_turns_from_one(client):
    text = text_of(client.get(f"/d/{TRACES}/rollouts/0/0").get_data(as_text=True))
    assert "reward: 1.0" in text and "model: demo-model-small" in text  # never a bare "1.0"
    turns = [int(n) for n in re.findall(r"Turn (\d+) ·", text)]
    assert turns and turns == list(range(1, len(turns) + 1))
