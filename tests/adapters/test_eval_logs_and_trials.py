"""Inspect eval logs and Harbor trial folders in a dataset repository: read as recorded runs, never as tasks.

The files are written here in the real formats' shapes: an Inspect `.eval` log as inspect_ai writes it (a zip of
`header.json` and `samples/<id>_epoch_<n>.json`, each sample's `messages` with `tool_calls` whose `function` is
the tool's name, `target` the reference answer, `scores` by scorer); a Harbor trial as Harbor's runner leaves it
(`<trial>/agent/trajectory.json` built with Harbor's own ATIF models, `<trial>/result.json` with
`verifier_result.rewards` and `task_name`, and the trial's `config.json`, which must not become a task)."""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from tests.conftest import index_now

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
TASKS = [{"question": f"Add {i} and {i}, then write the sum to sum.txt.", "answer": f"ZX-ANSWER-{i:04d}"}
         for i in range(3)]


def inspect_log(path):
    header = {"version": 2, "status": "success", "eval": {"task": "sums", "model": "openai/gpt-test"},
              "results": {"scores": [{"name": "match", "metrics": {"accuracy": {"value": 0.5}}}]}}
    samples = []
    for i in range(2):
        samples.append({
            "id": i + 1, "epoch": 1, "input": TASKS[i]["question"], "target": TASKS[i]["answer"],
            "messages": [
                {"role": "system", "content": "You are a careful assistant with a bash tool."},
                {"role": "user", "content": TASKS[i]["question"]},
                {"role": "assistant", "content": [{"type": "text", "text": "I will compute it."}],
                 "tool_calls": [{"id": f"call-{i}", "function": "bash",
                                 "arguments": {"cmd": f"echo {2 * i} > sum.txt"}, "type": "function"}]},
                {"role": "tool", "tool_call_id": f"call-{i}", "function": "bash", "content": f"attachment://out{i}"},
                {"role": "assistant", "content": f"Done: {TASKS[i]['answer']}"}],
            "scores": {"match": {"value": "C" if i == 0 else "I", "answer": "done",
                                 "explanation": f"compared with {TASKS[i]['answer']}"}},
            "metadata": {"grader_notes": TASKS[i]["answer"]},
            "attachments": {f"out{i}": f"inspect-out-{i}"}})  # a long text moved out of the message
    with zipfile.ZipFile(path, "w") as log:
        log.writestr("header.json", json.dumps(header))
        for s in samples:
            log.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        log.writestr("summaries.json", json.dumps([{"id": s["id"], "epoch": 1} for s in samples]))


def harbor_trial(folder):
    from harbor.models.trajectories import Agent, Observation, ObservationResult, Step, ToolCall, Trajectory

    trajectory = Trajectory(
        schema_version="ATIF-v1.2", session_id="trial-session-1",
        agent=Agent(name="terminus-2", version="2.0.0", model_name="hosted_vllm/test-model"),
        steps=[Step(step_id=1, source="system", message="You are an agent in a terminal."),
               Step(step_id=2, source="user", message="Write the sum of 2 and 2 to sum.txt."),
               Step(step_id=3, source="agent", message="Writing it.",
                    tool_calls=[ToolCall(tool_call_id="t1", function_name="bash_command",
                                         arguments={"keystrokes": "echo 4 > sum.txt\n"})],
                    observation=Observation(results=[ObservationResult(source_call_id="t1",
                                                                       content="harbor-screen-after")]))])
    (folder / "agent").mkdir(parents=True)
    (folder / "agent" / "trajectory.json").write_text(trajectory.model_dump_json(exclude_none=True))
    (folder / "result.json").write_text(json.dumps({
        "task_name": "sum-two", "trial_name": folder.name, "trial_uri": f"file:///jobs/{folder.name}",
        "agent_info": {"name": "terminus-2", "version": "2.0.0", "model_info": {"name": "test-model"}},
        "verifier_result": {"rewards": {"reward": 1.0}}, "exception_info": None}))
    (folder / "config.json").write_text(json.dumps({"task": {"path": "tasks/sum-two"}, "trials_dir": "jobs"}))


@pytest.fixture(scope="module")
def served(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config

    hub = tmp_path_factory.mktemp("evals") / "hub"
    with_tasks = hub / "datasets" / "lab" / "sums"
    (with_tasks / "data").mkdir(parents=True)
    (with_tasks / "README.md").write_text("---\ntags: [rl-environment]\n---\n# Sums\n")
    (with_tasks / "data" / "train.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    (with_tasks / "logs").mkdir()
    inspect_log(with_tasks / "logs" / "2026-11-30T10-00-00_sums_abc.eval")
    only_trials = hub / "datasets" / "lab" / "harbor-jobs"
    (only_trials).mkdir(parents=True)
    (only_trials / "README.md").write_text("---\ntags: [harbor]\n---\n# A job's trials\n")
    harbor_trial(only_trials / "jobs" / "2026-11-30" / "sum-two__abc123")
    app = create_app(Config.from_env({"STORAGE_DIR": str(hub.parent / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(hub)}))
    return app, index_now(app, "lab/sums"), index_now(app, "lab/harbor-jobs")


def test_an_inspect_log_is_listed_as_runs_beside_the_tasks(served):
    app, sums, _ = served
    assert len(sums.rows) == 3  # the tasks alone
    [log] = sums.summary["rollouts"]
    assert log["format"] == "inspect" and [t["title"][:12] for t in log["traces"]] == ["Add 0 and 0,", "Add 1 and 1,"]
    assert [t["task"] for t in log["traces"]] == ["train/0", "train/1"]  # linked by the prompt
    page = app.test_client().get("/d/lab/sums/rollouts/0/0").get_data(as_text=True)
    assert "calls bash" in page and "bash returned" in page and "inspect-out-0" in page
    assert page.index("calls bash") < page.index("bash returned") < page.index("inspect-out-0")
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Score C" in text and "openai/gpt-test" in text  # the scorer's verdict, the model the header names
    assert not SECRET.search(page)  # the target, where the reply, the explanation and the metadata repeat it


def test_a_harbor_trial_is_one_run_and_its_files_are_no_tasks(served):
    app, _, jobs = served
    assert jobs.rows == [] and jobs.summary["traces_only"]  # config.json and result.json are not tasks
    [trial] = jobs.summary["rollouts"]
    assert trial["path"] == "jobs/2026-11-30/sum-two__abc123/agent/trajectory.json"
    assert trial["format"] == "harbor-trial" and trial["traces"][0]["reward"] == 1.0
    assert trial["traces"][0]["model"] == "hosted_vllm/test-model"
    client = app.test_client()
    env_page = client.get("/d/lab/harbor-jobs").get_data(as_text=True)
    assert "This repository holds recorded runs, not tasks" in env_page and "a Harbor trial" in env_page
    page = client.get("/d/lab/harbor-jobs/rollouts/0/0").get_data(as_text=True)
    assert "Write the sum of 2 and 2 to sum.txt." in page and "calls bash_command" in page
    assert page.index("bash_command returned") < page.index("harbor-screen-after")


def test_a_broken_log_or_trial_is_said_on_the_page_not_an_error(tmp_path, redis_url):
    from rlx import create_app
    from rlx.config import Config

    root = tmp_path / "hub" / "datasets" / "lab" / "broken"
    (root / "logs").mkdir(parents=True)
    (root / "README.md").write_text("---\ntags: [rl-environment]\n---\n")
    (root / "logs" / "run.eval").write_bytes(b"PK\x03\x04 not really a zip")
    (root / "t" / "agent").mkdir(parents=True)
    (root / "t" / "agent" / "trajectory.json").write_text("{ not json")
    (root / "t" / "result.json").write_text("{}")
    app = create_app(Config.from_env({"STORAGE_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(tmp_path / "hub")}))
    index = index_now(app, "lab/broken")
    problems = {f["path"]: f["problem"] for f in index.summary["rollouts"]}
    assert "not an Inspect log" in problems["logs/run.eval"]
    assert "not valid JSON" in problems["t/agent/trajectory.json"]
    page = app.test_client().get("/d/lab/broken")
    assert page.status_code == 200 and "not an Inspect log" in page.get_data(as_text=True)
