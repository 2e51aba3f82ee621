"""Rollouts are not tasks: NeMo Gym's example_rollouts.jsonl beside example.jsonl, and a SWE-agent .traj, are
left out of the task list and named on the dataset's page with why (the layout NeMo Gym's resource servers ship:
data/example.jsonl with data/example_rollouts.jsonl beside it; the rows here are written from that schema)."""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES, index_now

ORG, NAME = "gym", "resource-server"
TASKS = (EXAMPLES / "datasets" / "rlx-examples" / "tool-calls-nemo-gym" / "data" / "train.jsonl").read_text()


def test_rollout_files_beside_tasks_are_named_and_never_listed(tmp_path, make_config, redis_client):
    from rlx import create_app

    root = tmp_path / "hub" / "datasets" / ORG / NAME
    (root / "data").mkdir(parents=True)
    (root / "README.md").write_text("---\npretty_name: Resource server\ntags:\n- nemo-gym\n---\n")
    tasks = TASKS.splitlines()[:5]
    (root / "data" / "example.jsonl").write_text("\n".join(tasks) + "\n")
    rollout = {**json.loads(tasks[0]), "response": {"output": [{"type": "message", "content": "It is 21 C."}]},
               "reward": 1.0}
    (root / "data" / "example_rollouts.jsonl").write_text(json.dumps(rollout) + "\n")
    (root / "runs").mkdir()
    (root / "runs" / "astropy-1234.traj").write_text('{"trajectory": [], "info": {"submission": "diff"}}')
    app = create_app(make_config(RLX_SOURCE=str(tmp_path / "hub")))
    index = index_now(app, f"{ORG}/{NAME}")
    assert len(index.rows) == 5 and index.summary["rows_total"] == 5  # the rollout is not a sixth task
    page = app.test_client().get(f"/d/{ORG}/{NAME}").get_data(as_text=True)
    assert "data/example_rollouts.jsonl is not listed: rollouts of the tasks beside it, not tasks." in page
    assert "runs/astropy-1234.traj is not listed: a SWE-agent trajectory (one agent" in page
