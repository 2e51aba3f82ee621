"""Pytest fixtures for the Hub stand-in: `hub` (a started stand-in with a small Hub in it) and `hub_source`.

The default Hub, built in code by `populate_default_hub`:

- `PUBLIC_HARBOR`: a public Harbor dataset (`tasks/<name>/` folders, a README card tagged harbor + rl-environment);
- `PRIVATE_HARBOR`: a private Harbor dataset owned by another org, granted to the token `ALICE`;
- `GATED_HARBOR`: a gated ("manual") Harbor dataset, granted to `ALICE` only;
- `OPENENV_SPACE`: a public Docker Space tagged openenv, RUNNING;
- `RL_ONLY`: a dataset tagged rl-environment but not harbor (for OR-merging tags);
- `BULK_HARBOR`: 24 more public harbor datasets with distinct trending scores, enough to paginate at small sizes.

Tokens: `ALICE` ("alice", granted the private and the gated dataset) and `BOB` ("bob", granted nothing).
"""

from __future__ import annotations

import pytest

from tests.stand_ins.hub import HubStandIn

PUBLIC_HARBOR = "harbor-org/terminal-tasks"
PRIVATE_HARBOR = "acme/private-tasks"
GATED_HARBOR = "gatekeep/gated-tasks"
OPENENV_SPACE = "openenv/echo-env"
RL_ONLY = "rl-lab/gridworld-prompts"
BULK_HARBOR = tuple(f"bulk-org/harbor-{i:02d}" for i in range(24))
ALICE = "hf_alice"
BOB = "hf_bob"
TASK_NAMES = ("chess-best-move", "fix-git", "hello-world")


def harbor_task(name: str, prefix: str = "tasks/") -> dict[str, str]:
    """The files of one Harbor task folder (`task.toml`, instruction, environment, tests, solution)."""
    base = f"{prefix}{name}/"
    return {
        base + "task.toml": f'version = "1.0"\n\n[metadata]\ndifficulty = "easy"\ncategory = "{name}"\n\n'
        "[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n",
        base + "instruction.md": f"Solve the task {name}. Write your answer to /app/answer.txt.\n",
        base + "environment/Dockerfile": "FROM python:3.12-slim\nWORKDIR /app\n",
        base + "tests/test.sh": "#!/bin/bash\npytest /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt\n",
        base + "tests/test_outputs.py": "def test_answer():\n    assert open('/app/answer.txt').read()\n",
        base + "solution/solve.sh": "#!/bin/bash\necho 42 > /app/answer.txt\n",
    }


def harbor_dataset(title: str, tasks=TASK_NAMES, tags=("harbor", "rl-environment")) -> dict[str, str]:
    """A Harbor dataset's files: a README card carrying `tags`, and one folder per task under `tasks/`."""
    tag_lines = "".join(f"- {tag}\n" for tag in tags)
    files = {"README.md": f"---\npretty_name: {title}\nlicense: mit\ntags:\n{tag_lines}---\n\n# {title}\n"}
    for name in tasks:
        files.update(harbor_task(name))
    return files


def populate_default_hub(hub: HubStandIn) -> HubStandIn:
    """Fill `hub` with the default repositories and tokens described in this module's docstring."""
    dated = {"createdAt": "2025-03-01T10:00:00.000Z", "lastModified": "2025-06-01T10:00:00.000Z"}
    hub.add_repo(
        "dataset",
        PUBLIC_HARBOR,
        harbor_dataset("Terminal tasks"),
        {"likes": 42, "downloads": 1200, "trendingScore": 90, **dated},
    )
    hub.add_repo(
        "dataset",
        PRIVATE_HARBOR,
        harbor_dataset("Private tasks", tasks=("secret-task",)),
        {"private": True, "trendingScore": 80, **dated},
    )
    hub.add_repo(
        "dataset",
        GATED_HARBOR,
        harbor_dataset("Gated tasks", tasks=("gated-task",)),
        {"gated": "manual", "likes": 7, "trendingScore": 70, **dated},
    )
    hub.add_repo(
        "dataset",
        RL_ONLY,
        {"README.md": "---\npretty_name: Gridworld prompts\ntags: [rl-environment]\n---\n", "data/train.jsonl": "{}\n"},
        {"trendingScore": 65, **dated},
    )
    for i, repo_id in enumerate(BULK_HARBOR):
        tags = ("harbor", "rl-environment") if i % 3 == 0 else ("harbor",)
        hub.add_repo("dataset", repo_id, harbor_dataset(f"Bulk {i}", tasks=(f"task-{i}",), tags=tags),
                     {"trendingScore": i, "likes": i % 5, **dated})  # fmt: skip
    hub.add_repo(
        "space",
        OPENENV_SPACE,
        {
            "README.md": "---\ntitle: Echo env\nsdk: docker\napp_port: 8000\ntags:\n- openenv\n---\n",
            "Dockerfile": "FROM python:3.12-slim\n",
            "server/app.py": "app = None\n",
        },
        {"likes": 3, "trendingScore": 12, "runtime": {"stage": "RUNNING"}, **dated},
    )
    hub.add_token(ALICE, "alice", grants=(PRIVATE_HARBOR, GATED_HARBOR))
    hub.add_token(BOB, "bob")
    return hub


@pytest.fixture
def hub():
    """A started Hub stand-in holding the default repositories and tokens; stopped after the test."""
    stand_in = populate_default_hub(HubStandIn())
    with stand_in:
        yield stand_in


@pytest.fixture
def hub_source(hub):
    """A HubSource pointed at the `hub` stand-in, with short retry waits so failure tests stay fast."""
    from rlx.sources.hub import HubSource

    return HubSource(hub.url, connect_timeout=2.0, read_timeout=5.0, backoff=0.01, max_wait=2.0)
