"""The variables a task may name in its task.toml, resolved by us before Harbor reads the file.

Harbor fills `"${NAME}"` and `"${NAME:-default}"` in a task's `env` tables (`[environment]`, `[verifier]`,
`[solution]`, a step's verifier, a separate verifier environment) and `${NAME}` inside MCP server headers from the
worker's own environment: a published task could ask for the session secret or a visitor's model key and print
it. So the copy of task.toml Harbor gets has every template already replaced, from TASK_VARIABLES alone (never
os.environ): a name outside it takes the task's own default, and a name with no default fails the run with a
sentence before anything starts. A value that still reads like a template afterwards is refused too, so Harbor
never gets one to resolve.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import toml  # Harbor's own dependency; writes the resolved copy (checked by reading it back)

# What a task may ask for, each with what it gets; documented in docs/SANDBOX.md ("Task variables").
TASK_VARIABLES = {
    "RLX_RUN_ID": "the run's id",
    "RLX_AGENT": "the agent's name (a name from rlx/runs/agents.py)",
    "RLX_SANDBOX": "where the run happens: local or hf",
    "RLX_JUDGE_URL": "a model-graded task's judge: an OpenAI-compatible base URL inside the sandbox (rlx/runs/judges.py)",
    "RLX_JUDGE_MODEL": "the judge model the visitor picked from the admin's pool",
}

_WHOLE = re.compile(r"\$\{([^}:]+)(?::-(.*))?\}")  # Harbor's full-value template (utils/env.py)
_EMBEDDED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")  # and its header template


class TaskVariableError(ValueError):
    """The task asks for a variable this site does not give tasks; the message is one sentence."""


def task_variables(run) -> dict[str, str]:
    """The values of TASK_VARIABLES for one run (nothing secret: all of it is on the run's page)."""
    from rlx.runs.judge_run import judge_variables

    return {"RLX_RUN_ID": run.id, "RLX_AGENT": run.agent, "RLX_SANDBOX": run.sandbox, **judge_variables(run)}


def seal_task_config(task_dir: Path, variables: dict[str, str]) -> bool:
    """Rewrite `task_dir/task.toml` with every template resolved from `variables`; True when it changed."""
    path = task_dir / "task.toml"
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskVariableError(f"The task's task.toml cannot be read ({exc}).") from None
    resolved = _resolve_tree(config, variables, where=())
    if resolved == config:
        return False
    text = toml.dumps(resolved)
    if tomllib.loads(text) != resolved:  # the writer lost something: refuse rather than run another task
        raise TaskVariableError("The task's task.toml could not be rewritten faithfully with its variables.")
    path.write_text(text, encoding="utf-8")
    return True


def _resolve_tree(value, variables: dict[str, str], where: tuple[str, ...]):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "env" and isinstance(item, dict):
                out[key] = {k: _whole(v, variables, (*where, key, k)) for k, v in item.items()}
            elif key == "headers" and isinstance(item, dict):
                out[key] = {k: _embedded(v, variables, (*where, key, k)) for k, v in item.items()}
            else:
                out[key] = _resolve_tree(item, variables, (*where, str(key)))
        return out
    if isinstance(value, list):
        return [_resolve_tree(item, variables, (*where, str(i))) for i, item in enumerate(value)]
    return value


def _whole(value, variables: dict[str, str], where: tuple[str, ...]):
    if not isinstance(value, str):
        return value
    match = _WHOLE.fullmatch(value)
    if match is None:
        return value  # Harbor passes a value that is not one whole template through as it is
    return _checked(_lookup(match.group(1), match.group(2), variables, where), where)


def _embedded(value, variables: dict[str, str], where: tuple[str, ...]):
    if not isinstance(value, str):
        return value
    resolved = _EMBEDDED.sub(lambda m: _lookup(m.group(1), m.group(2), variables, where), value)
    return _checked(resolved, where)


def _lookup(name: str, default: str | None, variables: dict[str, str], where: tuple[str, ...]) -> str:
    if name in variables:
        return variables[name]
    if default is not None:
        return default
    if name.startswith("RLX_JUDGE_"):
        raise TaskVariableError("This task is graded by a judge model and the run has none: start it from the "
                                "task's run form, picking a judge.")
    offered = ", ".join(sorted(variables)) or "none"
    raise TaskVariableError(f"The task asks for ${{{name}}} in {_place(where)}, which this site does not give "
                            f"tasks (it gives {offered}); give it a default (${{{name}:-value}}) to run here.")


def _checked(resolved: str, where: tuple[str, ...]) -> str:
    if "${" in resolved:
        raise TaskVariableError(f"{_place(where)} in the task's task.toml is a template inside a template, "
                                "which this site does not resolve.")
    return resolved


def _place(where: tuple[str, ...]) -> str:
    *table, key = where
    return f"[{'.'.join(table)}] {key}" if table else key


__all__ = ["TASK_VARIABLES", "TaskVariableError", "seal_task_config", "task_variables"]
