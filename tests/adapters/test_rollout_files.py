"""Rollouts are rollouts: files of runs beside a repository's tasks are never tasks; each is named on the
dataset's page, each run opens as a trace (its turns, each tool call beside its output, its reward) linked to the
task it ran on, and what the grader holds stays out of the trace as it does out of the task.

Every record here is our own, written in the shape of a real public file of its format:
- NeMo Gym: NVIDIA-NeMo/Gym resources_servers/example_multi_turn/data/example_rollouts.jsonl (Responses API
  `response.output` items, `reward`, `_ng_task_index`) beside its example.jsonl;
- Verifiers: the eval outputs `outputs/evals/<env>--<model>/<run>/results.jsonl` rows (prompt, completion,
  reward, metrics, answer, example_id), as PrimeIntellect-ai/verifiers' eval TUI reads them;
- SWE-agent `.traj` (trajectory of thought/action/observation, history, info.exit_status/submission);
- agent sessions as the Hub's trace viewer reads them (huggingface/hub-docs agent-traces.md and
  session-traces-format.md): Claude Code, Codex, Pi, and the Session Trace Simple format.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import index_now

ORG, NAME = "gym", "resource-server"
S = "ZX-ROLLOUT-SECRET"
QUESTIONS = ["What is the weather in Lisbon today?", "What is the weather in Oslo today?",
             "What is the weather in Quito today?"]
TOOLS = [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}]
TASKS = [{"id": i, "responses_create_params": {"input": [{"role": "user", "content": q}], "tools": TOOLS},
          "expected_answer": f"{S}-TASK-{i}"} for i, q in enumerate(QUESTIONS)]


def _nemo_rollout(task: int, reward: float) -> dict:
    call = f"call_{task}"
    return {"responses_create_params": {"input": [{"role": "developer", "content": "Use the tools.",
                                                   "type": "message"},
                                                  {"role": "user", "content": QUESTIONS[task], "type": "message"}],
                                        "tools": TOOLS},
            "response": {"model": "gpt-test-1", "output": [
                {"type": "function_call", "name": "get_weather", "arguments": '{"city": "Q"}', "call_id": call},
                {"type": "function_call_output", "call_id": call, "output": f"sky: {S}-GOLD-{task} overhead"},
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": f"It is sunny ({S}-GOLD-{task})."}]}]},
            "reward": reward, "expected_answer": f"{S}-GOLD-{task}", "_ng_task_index": task, "_ng_rollout_index": 0}


VERIFIERS = [{"example_id": 1, "prompt": [{"role": "user", "content": QUESTIONS[1]}],
              "completion": [{"role": "assistant", "content": f"Cold. {S}-ANSWER-1"}], "reward": 1.0,
              "metrics": {"correct_answer": 1.0}, "answer": f"{S}-ANSWER-1", "info": {"note": "x"}, "task": "default"}]
SWE_TRAJ = {"history": [{"role": "system", "content": "You are a software agent."},
                        {"role": "user", "content": "Fix the crash when the size is zero."},
                        {"role": "assistant", "content": "Looking."}],
            "trajectory": [{"thought": "Find the file.", "action": "ls src", "observation": "widget.py"},
                           {"thought": "Patch it.", "action": "submit", "observation": "Submitted."}],
            "info": {"exit_status": "submitted", "submission": "diff --git a/widget.py b/widget.py"}}
SESSIONS = {
    "claude.jsonl": [
        {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "List the files here."}},
        {"type": "assistant", "sessionId": "s1", "message": {"role": "assistant", "model": "claude-test", "content": [
            {"type": "text", "text": "Listing."}, {"type": "tool_use", "id": "tu1", "name": "Bash",
                                                   "input": {"command": "ls"}}]}},
        {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu1", "content": "claude-listing.txt"}]}}],
    "codex.jsonl": [
        {"type": "session_meta", "payload": {"id": "c1", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "Count the lines."}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "k1",
                                              "arguments": '{"command": ["wc", "-l"]}'}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "k1",
                                              "output": "codex-count 42"}}],
    "pi.jsonl": [
        {"type": "session", "version": 3, "id": "p1", "cwd": "/w"},
        {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "Read the notes."}]}},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "pc1", "name": "read", "arguments": {"path": "notes.md"}}]}},
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "pc1", "toolName": "read",
                                        "content": [{"type": "text", "text": "pi-notes body"}]}}],
    "sts.jsonl": [
        {"type": "session", "harness": "my-harness", "id": "t1"},
        {"type": "message", "message": {"role": "user", "content": "Ping the host."}},
        {"type": "message", "message": {"role": "assistant", "content": "", "toolCalls": [
            {"id": "q1", "function": {"name": "ping", "arguments": '{"host": "h"}'}}]}},
        {"type": "message", "message": {"role": "tool", "toolCallId": "q1", "content": "sts-pong"}}],
}


def _lines(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def served(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config

    hub = tmp_path_factory.mktemp("rollouts") / "hub"
    root = hub / "datasets" / ORG / NAME
    for folder in ("data", "runs", "sessions", "outputs/evals/weather--gpt/run1"):
        (root / folder).mkdir(parents=True)
    (root / "README.md").write_text("---\npretty_name: Resource server\ntags:\n- nemo-gym\n---\n")
    (root / "data" / "example.jsonl").write_text(_lines(TASKS))
    (root / "data" / "example_rollouts.jsonl").write_text(_lines([_nemo_rollout(2, 1.0), _nemo_rollout(0, 0.0)]))
    (root / "outputs/evals/weather--gpt/run1/results.jsonl").write_text(_lines(VERIFIERS))
    (root / "runs" / "widget-0.traj").write_text(json.dumps(SWE_TRAJ))
    for name, lines in SESSIONS.items():
        (root / "sessions" / name).write_text(_lines(lines))
    app = create_app(Config.from_env({"STORAGE_DIR": str(hub.parent / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(hub)}))
    index = index_now(app, f"{ORG}/{NAME}")
    return app, index


def _files(index) -> dict[str, dict]:
    return {f["path"]: {**f, "n": n} for n, f in enumerate(index.summary["rollouts"])}


def test_rollout_files_are_never_tasks_and_each_is_named_on_the_page(served):
    app, index = served
    assert len(index.rows) == 3 and index.summary["rows_total"] == 3  # the tasks alone
    page = app.test_client().get(f"/d/{ORG}/{NAME}").get_data(as_text=True)
    assert "Rollouts in this repository" in page
    for path, label in [("data/example_rollouts.jsonl", "NeMo Gym rollouts"),
                        ("outputs/evals/weather--gpt/run1/results.jsonl", "Verifiers eval results"),
                        ("runs/widget-0.traj", "a SWE-agent trajectory"),
                        ("sessions/claude.jsonl", "a Claude Code session"), ("sessions/codex.jsonl", "a Codex session"),
                        ("sessions/pi.jsonl", "a Pi session"),
                        ("sessions/sts.jsonl", "a session (Session Trace Simple format)")]:
        assert f"<code>{path}</code></a>\n      · {label}" in page, path


def test_a_rollout_file_lists_its_traces_with_reward_and_the_task_each_ran_on(served):
    app, index = served
    n = _files(index)["data/example_rollouts.jsonl"]["n"]
    page = app.test_client().get(f"/d/{ORG}/{NAME}/rollouts/{n}").get_data(as_text=True)
    assert page.count('href="/t/gym/resource-server/train/2"') == 1  # linked by its prompt
    assert page.count('href="/t/gym/resource-server/train/0"') == 1
    assert "What is the weather in Quito today?" in page and "<td>1.0</td>" in page and "gpt-test-1" in page


@pytest.mark.parametrize("path, call, output", [
    ("data/example_rollouts.jsonl", "get_weather", "overhead"),
    ("sessions/claude.jsonl", "Bash", "claude-listing.txt"),
    ("sessions/codex.jsonl", "shell", "codex-count 42"),
    ("sessions/pi.jsonl", "read", "pi-notes body"),
    ("sessions/sts.jsonl", "ping", "sts-pong"),
    ("runs/widget-0.traj", "action", "widget.py"),
])
def test_each_trace_draws_its_tool_calls_beside_their_output(served, path, call, output):
    app, index = served
    n = _files(index)[path]["n"]
    page = app.test_client().get(f"/d/{ORG}/{NAME}/rollouts/{n}/0").get_data(as_text=True)
    assert f"calls {call}" in page and f"{call} returned" in page and output in page
    # the output stands right after its call, not in a turn of its own
    assert page.index(f"calls {call}") < page.index(f"{call} returned") < page.index(output)


def test_a_trace_links_its_task_and_keeps_the_graders_side_out(served):
    app, index = served
    client = app.test_client()
    for path in ("data/example_rollouts.jsonl", "outputs/evals/weather--gpt/run1/results.jsonl"):
        n = _files(index)[path]["n"]
        page = client.get(f"/d/{ORG}/{NAME}/rollouts/{n}/0").get_data(as_text=True)
        assert S not in page, path  # the reference answer and its value where the trace repeats it
        assert "A run of the task <a href=\"/t/gym/resource-server/train/" in page
        assert "withheld" in page
    verifiers = client.get(f"/d/{ORG}/{NAME}/rollouts/{_files(index)['outputs/evals/weather--gpt/run1/results.jsonl']['n']}/0")
    assert 'href="/t/gym/resource-server/train/1"' in verifiers.get_data(as_text=True)


def test_a_task_links_the_rollouts_of_it_the_repository_ships(served):
    page = served[0].test_client().get(f"/t/{ORG}/{NAME}/train/2").get_data(as_text=True)
    assert "Rollouts of this task in this repository" in page
    assert "<code>data/example_rollouts.jsonl</code> · trace 0</a> · reward 1.0" in page


def test_the_task_view_holds_no_graded_completion(served):
    app, _ = served
    for ref in ("train/0", "train/1", "train/2"):
        page = app.test_client().get(f"/t/{ORG}/{NAME}/{ref}").get_data(as_text=True)
        assert S not in page and "It is sunny" not in page and "Cold." not in page


def test_unknown_files_and_traces_are_404(served):
    client = served[0].test_client()
    assert client.get(f"/d/{ORG}/{NAME}/rollouts/99").status_code == 404
    assert client.get(f"/d/{ORG}/{NAME}/rollouts/0/9999").status_code == 404
