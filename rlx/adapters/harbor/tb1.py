"""Read an older Terminal-Bench (1.x) task.yaml into the same TaskConfig a Harbor task.toml gives.

Read as Harbor's own Terminal-Bench mapper (harbor 0.25.0) reads it: `instruction` is the prompt (the oldest
files have `descriptions`, a list of `{key, description}`, whose `base` entry is the prompt);
`max_agent_timeout_sec` (default 360) is the agent timeout and `max_test_timeout_sec` (default 60) the verifier
timeout; author, difficulty, category, tags and time estimates are metadata. The settings of Terminal-Bench's
own harness (`parser_name`, `run_tests_in_same_shell`) are kept apart for the page; `disable_asciinema` (a
recording switch) is read and left out.
Other keys are kept in `extra`, to be shown once answers are stripped from them.
"""

from __future__ import annotations

import yaml

from rlx.adapters.harbor.taskconfig import AgentConfig, TaskConfig, VerifierConfig
from rlx.adapters.harbor.tomlvalues import TaskTomlError
from rlx.sources.yamlsafe import YamlTooLarge, load_bounded

AGENT_TIMEOUT_DEFAULT = 360.0
TEST_TIMEOUT_DEFAULT = 60.0
METADATA_KEYS = ("author_name", "author_email", "difficulty", "category", "tags", "estimated_duration_sec",
                 "expert_time_estimate_min", "junior_time_estimate_min")
HARNESS_KEYS = ("parser_name", "run_tests_in_same_shell", "disable_asciinema")
READ_KEYS = {"instruction", "descriptions", "max_agent_timeout_sec", "max_test_timeout_sec", *METADATA_KEYS,
             *HARNESS_KEYS}


class TaskYamlError(TaskTomlError):
    """A task.yaml this reader cannot use, in one sentence."""


def parse_task_yaml(text: str) -> tuple[TaskConfig, str, dict]:
    """(config, instruction, harness settings) of a Terminal-Bench 1 task.yaml; raises TaskYamlError."""
    try:
        data = load_bounded(text.removeprefix("\ufeff"))
    except YamlTooLarge as exc:
        raise TaskYamlError(f"task.yaml is refused: {exc}.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise TaskYamlError(f"task.yaml is not valid YAML{where}.") from None
    if not isinstance(data, dict):
        raise TaskYamlError("task.yaml should be a mapping of settings (instruction, difficulty, ...).")
    config = TaskConfig(
        schema_version=None,
        metadata={key: data[key] for key in METADATA_KEYS if data.get(key) not in (None, "")},
        agent=AgentConfig(timeout_sec=_seconds(data, "max_agent_timeout_sec", AGENT_TIMEOUT_DEFAULT)),
        verifier=VerifierConfig(timeout_sec=_seconds(data, "max_test_timeout_sec", TEST_TIMEOUT_DEFAULT)),
        extra={key: value for key, value in data.items() if key not in READ_KEYS},
    )
    if config.metadata.get("tags") is not None and not isinstance(config.metadata["tags"], list):
        config.metadata["tags"] = [str(config.metadata["tags"])]
    config.legacy.append("Terminal-Bench 1 task.yaml, read as Harbor's mapper reads it: max_agent_timeout_sec is "
                         "the agent timeout, max_test_timeout_sec the verifier timeout, run-tests.sh the verifier.")
    harness = {
        "parser": str(data.get("parser_name") or "pytest"),
        "same_shell": bool(data.get("run_tests_in_same_shell")),
    }
    return config, _instruction(data), harness


def _instruction(data: dict) -> str:
    if isinstance(data.get("instruction"), str):
        return data["instruction"]
    descriptions = data.get("descriptions")
    if isinstance(descriptions, list):
        entries = [d for d in descriptions if isinstance(d, dict) and isinstance(d.get("description"), str)]
        base = next((d for d in entries if d.get("key") == "base"), entries[0] if entries else None)
        if base is not None:
            return base["description"]
    raise TaskYamlError("task.yaml has no instruction (neither `instruction` nor a `descriptions` entry).")


def _seconds(data: dict, key: str, default: float) -> float:
    value = data.get(key)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TaskYamlError(f"task.yaml {key} should be a number of seconds, not {value!r}.") from None
    if not 0 < number < 10**7:
        raise TaskYamlError(f"task.yaml {key} should be a positive number of seconds, not {value!r}.")
    return number
