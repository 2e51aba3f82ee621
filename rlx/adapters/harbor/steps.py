"""The steps of a multi-step Harbor task, each with its own instruction, timeouts and grader.

Timeouts follow harbor 0.25.0's multi-step trial: a step's agent timeout is its own `[steps.agent]` one, else the
task's `[agent]` one; a step's verifier timeout is its own `[steps.verifier]` one, else Harbor's verifier default
(10 min): the task's top-level `[verifier]` timeout is not carried into steps. A step's grader is its own
`steps/<name>/tests/test.sh`, else the task's shared `tests/test.sh`.
"""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.harbor.numbers import plain, seconds
from rlx.adapters.harbor.taskconfig import DEFAULT_TIMEOUT_SEC

REWARD_STRATEGIES = {"mean": "the mean of the steps' rewards", "final": "the last step's reward"}


def steps_block(steps: list[dict], text, config: dict):
    """One part per step: its instruction, a line of its settings, and the verifier it is graded by."""
    task_agent_timeout = (config.get("agent") or {}).get("timeout_sec")
    parts = []
    for number, step in enumerate(steps, 1):
        name = str(step.get("name", ""))
        body = text(f"steps/{name}/instruction.md")
        inner = [b.prompt(body)] if body else [b.note("This step's instruction is read when the task is run; "
                                                        "it is not in the index.", "info")]
        inner.append(b.kv(step_settings(step, task_agent_timeout), title="Settings"))
        grader_path, grader = _grader(name, text)
        if grader is not None:
            inner.append(b.disclose(f"Graded by {grader_path}", [b.code(grader, "bash", grader_path)]))
        parts.append({"title": f"Step {number}: {name or 'step'}", "blocks": inner})
    return b.steps(parts, title=f"{len(steps)} steps, each with its own instruction, timeouts and grader")


def step_settings(step: dict, task_agent_timeout) -> list[tuple[str, object]]:
    agent = _table(step.get("agent"))
    verifier = _table(step.get("verifier"))
    own_agent = agent.get("timeout_sec")
    if own_agent is not None:
        agent_timeout = seconds(own_agent)
    elif task_agent_timeout is not None:
        agent_timeout = f"{seconds(task_agent_timeout)} (the task's)"
    else:
        agent_timeout = "no limit"
    own_verifier = verifier.get("timeout_sec")
    verifier_timeout = (seconds(own_verifier) if own_verifier is not None
                        else f"{seconds(DEFAULT_TIMEOUT_SEC)} (Harbor's default)")
    healthcheck = _table(step.get("healthcheck"))
    return [
        ("Agent timeout", agent_timeout),
        ("Verifier timeout", verifier_timeout),
        ("Continues only if reward ≥", _min_reward(step.get("min_reward"))),
        ("Verifier variables", sorted(str(k) for k in _table(verifier.get("env"))) or None),  # names only
        ("Health check", healthcheck.get("command")),
    ]


def reward_strategy(config: dict) -> str:
    strategy = config.get("multi_step_reward_strategy") or "mean"
    return REWARD_STRATEGIES.get(strategy, strategy)


def _grader(name: str, text) -> tuple[str, str | None]:
    for path in (f"steps/{name}/tests/test.sh", f"steps/{name}/tests/test.bat"):
        if text(path) is not None:
            return path, text(path)
    shared = text("tests/test.sh")
    return "tests/test.sh", shared


def _min_reward(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    return plain(value)


def _table(value) -> dict:
    return value if isinstance(value, dict) else {}
