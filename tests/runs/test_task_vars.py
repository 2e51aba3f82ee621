"""Templates in a task.toml are filled from the variables this site gives tasks, never from the environment."""

from __future__ import annotations

import tomllib

import pytest

from rlx.runs.task_vars import TaskVariableError, seal_task_config

GIVEN = {"RLX_RUN_ID": "abc123def456", "RLX_AGENT": "oracle", "RLX_SANDBOX": "local"}


def sealed(tmp_path, text: str) -> dict:
    (tmp_path / "task.toml").write_text(text)
    seal_task_config(tmp_path, GIVEN)
    return tomllib.loads((tmp_path / "task.toml").read_text())


def test_every_env_table_and_header_is_filled_from_the_given_variables_only(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_SECRET", "from-the-environment")
    config = sealed(tmp_path, '''
[verifier]
env = { A = "${SESSION_SECRET:-none}", B = "${RLX_RUN_ID}", C = "plain ${SESSION_SECRET} text" }
[verifier.environment]
env = { D = "${SESSION_SECRET:-d}" }
[solution]
env = { E = "${RLX_AGENT:-x}" }
[environment]
env = { F = "${HOME:-/root}" }
[[environment.mcp_servers]]
name = "m"
transport = "streamable-http"
url = "https://mcp.example"
headers = { X-Run = "run ${RLX_RUN_ID} ${SESSION_SECRET:-s}" }
[[steps]]
name = "one"
[steps.verifier]
env = { G = "${SESSION_SECRET:-g}" }
''')
    assert config["verifier"]["env"] == {"A": "none", "B": "abc123def456", "C": "plain ${SESSION_SECRET} text"}
    assert config["verifier"]["environment"]["env"] == {"D": "d"}
    assert config["solution"]["env"] == {"E": "oracle"}
    assert config["environment"]["env"] == {"F": "/root"}
    assert config["environment"]["mcp_servers"][0]["headers"] == {"X-Run": "run abc123def456 s"}
    assert config["steps"][0]["verifier"]["env"] == {"G": "g"}
    assert "from-the-environment" not in (tmp_path / "task.toml").read_text()


def test_a_task_without_templates_is_left_as_it_was_written(tmp_path):
    text = '# a comment kept\n[verifier]\ntimeout_sec = 20.0\nenv = { A = "b" }\n'
    (tmp_path / "task.toml").write_text(text)
    assert seal_task_config(tmp_path, GIVEN) is False
    assert (tmp_path / "task.toml").read_text() == text


@pytest.mark.parametrize("value, words", [
    ("${SESSION_SECRET}", "asks for ${SESSION_SECRET} in [verifier.env] A, which this site does not give tasks"),
    ("${NOPE:-${SESSION_SECRET}}", "a template inside a template"),
])
def test_a_name_we_do_not_give_without_a_default_or_a_nested_template_is_refused(tmp_path, value, words):
    (tmp_path / "task.toml").write_text(f'[verifier]\nenv = {{ A = "{value}" }}\n')
    with pytest.raises(TaskVariableError, match=words.replace("$", r"\$").replace("[", r"\[").replace("{", r"\{")):
        seal_task_config(tmp_path, GIVEN)
