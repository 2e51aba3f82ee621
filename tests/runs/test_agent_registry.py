"""The run and batch forms offer the agents this host can run, and show each other one greyed with the reason."""

from __future__ import annotations

import re

import pytest

from tests.conftest import index_now
from tests.runs_helpers import SCIENCE

TASK = f"/t/{SCIENCE}/chemistry/molar-mass-table"
MIMO_TWIN = "rlx-examples/mimo-release-harbor"
MIMO_TASK = f"/t/{MIMO_TWIN}/music-gk-0812"  # its task.toml names mimo_instance_id = "gK-0812"
OURS = {"Origin": "http://localhost"}
MIMO = "mimo/node_modules/@mimo-ai/mimocode-linux-x64/bin/mimo"
INSTALLED = ("mini-swe-agent/bin/mini-swe-agent", "npm/node_modules/.bin/codex", "npm/node_modules/.bin/pi",
             "npm/node_modules/.bin/node", "npm/node_modules/.bin/opencode",
             "npm/node_modules/.bin/claude", MIMO)
NOT_MIMOS = ("mimo</span>: mimo is the harness of the MiMo release, so it runs MiMo tasks only (a task whose "
             "task.toml names a mimo_instance_id); this task runs on the other agents.")


def _agents_dir(tmp_path, *installed: str):
    folder = tmp_path / "agents"
    folder.mkdir()
    for path in installed:
        program = folder / path
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return folder


@pytest.fixture
def host_app(make_config, redis_client, tmp_path, request):
    from rlx import create_app

    app = create_app(make_config(RLX_AGENTS_DIR=str(_agents_dir(tmp_path, *request.param))))
    index_now(app, SCIENCE)
    index_now(app, MIMO_TWIN)
    return app


def _local_form(page: str) -> str:
    return re.search(r'<form[^>]*class="run-form".*?name="option" value="local".*?</form>', page, re.S).group(0)


def _offered(form: str) -> tuple[list[str], list[str]]:
    select = re.search(r'<select name="agent">(.*?)</select>', form, re.S).group(1)
    options = re.findall(r'<option value="([^"]+)"([^>]*)>', select)
    return [v for v, attrs in options if "disabled" not in attrs], [v for v, attrs in options if "disabled" in attrs]


@pytest.mark.parametrize("host_app", [INSTALLED], indirect=True)
def test_every_agent_is_listed_and_those_that_cannot_run_are_greyed_with_why(host_app):
    form = _local_form(host_app.test_client().get(TASK).get_data(as_text=True))
    offered, greyed = _offered(form)
    assert offered == ["oracle", "nop", "terminus-2", "mini-swe-agent", "codex", "opencode", "pi", "claude-code"]
    assert greyed == ["mimo"]  # installed, but this is not one of MiMo's tasks
    assert NOT_MIMOS in form
    # the model fields are asked for every agent that uses a model
    assert 'data-for-agent="terminus-2 mini-swe-agent codex opencode pi claude-code mimo"' in form


@pytest.mark.parametrize("host_app", [INSTALLED], indirect=True)
def test_mimo_is_offered_on_mimos_tasks_beside_the_harbor_runners_which_stay_the_default(host_app):
    client = host_app.test_client()
    form = _local_form(client.get(MIMO_TASK).get_data(as_text=True))
    offered, greyed = _offered(form)
    assert offered == ["oracle", "nop", "terminus-2", "mini-swe-agent", "codex", "opencode", "pi", "claude-code",
                       "mimo"]
    assert greyed == []
    assert '<option value="oracle" selected>' in form  # the conversion's own default, unless mimo is chosen
    # elsewhere it is refused with the reason, and a batch (no one task) never runs it
    refused = client.post(f"{TASK}/run", headers=OURS, data={
        "option": "local", "agent": "mimo", "visibility": "private", "model": "m",
        "endpoint": "https://api.example.com/v1", "api_key": ""})
    assert refused.status_code == 400
    assert "mimo cannot run here: mimo is the harness of the MiMo release" in refused.get_data(as_text=True)
    batch = re.search(r'<form[^>]*class="batch-form".*?</form>', client.get(f"/d/{MIMO_TWIN}").get_data(
        as_text=True), re.S).group(0)
    assert "mimo" in _offered(batch)[1] and "A batch runs it on no task." in batch
    refused = client.post(f"/d/{MIMO_TWIN}/batch", headers=OURS, data={
        "agent": "mimo", "visibility": "private", "cap": "1", "model": "m", "endpoint": "https://api.example.com/v1"})
    assert refused.status_code == 400 and "mimo cannot run here" in refused.get_data(as_text=True)


@pytest.mark.parametrize("host_app", [INSTALLED[:-1]], indirect=True)
def test_mimo_not_installed_is_greyed_on_mimos_tasks_with_why(host_app):
    form = _local_form(host_app.test_client().get(MIMO_TASK).get_data(as_text=True))
    offered, greyed = _offered(form)
    assert "claude-code" in offered and greyed == ["mimo"]
    assert ("mimo</span>: mimo is not installed on this host (deploy/agents/install.sh installs it, pinned).") in form


@pytest.mark.parametrize("host_app", [INSTALLED], indirect=True)
def test_mimo_on_a_host_it_has_no_build_for_is_greyed_with_why(host_app, monkeypatch):
    monkeypatch.setattr("platform.machine", lambda: "aarch64")
    form = _local_form(host_app.test_client().get(MIMO_TASK).get_data(as_text=True))
    offered, greyed = _offered(form)
    assert "opencode" in offered and greyed == ["mimo"]
    assert "mimo</span>: mimo is published for x86_64 Linux only, and this host is aarch64." in form


@pytest.mark.parametrize("host_app", [()], indirect=True)
def test_an_agent_that_cannot_run_here_is_greyed_and_refused_with_the_reason(host_app):
    client = host_app.test_client()
    offered, greyed = _offered(_local_form(client.get(TASK).get_data(as_text=True)))
    assert offered == ["oracle", "nop", "terminus-2"] and "pi" in greyed and "mini-swe-agent" in greyed
    response = client.post(f"{TASK}/run", headers=OURS, data={
        "option": "local", "agent": "pi", "visibility": "private", "model": "m",
        "endpoint": "https://api.example.com/v1", "api_key": ""})
    assert response.status_code == 400
    assert ("pi cannot run here: pi is not installed on this host (deploy/agents/install.sh installs it, "
            "pinned).") in response.get_data(as_text=True)
    env_page = client.get(f"/d/{SCIENCE}").get_data(as_text=True)
    batch = re.search(r'<form[^>]*class="batch-form".*?</form>', env_page, re.S).group(0)
    offered, greyed = _offered(batch)
    assert offered == ["oracle", "nop", "terminus-2"] and "claude-code" in greyed
    assert ("claude-code</span>: claude-code is not installed on this host (deploy/agents/install.sh installs it, "
            "pinned).") in batch
    assert ("mini-swe-agent</span>: mini-swe-agent is not installed on this host (deploy/agents/install.sh "
            "installs it, pinned).") in batch
    assert "opencode</span>: opencode is not installed on this host" in batch
    refused = client.post(f"/d/{SCIENCE}/batch", headers=OURS, data={
        "agent": "opencode", "visibility": "private", "cap": "1", "model": "m",
        "endpoint": "https://api.example.com/v1"})
    assert refused.status_code == 400
    assert "opencode cannot run here: opencode is not installed on this host" in refused.get_data(as_text=True)


@pytest.mark.parametrize("host_app", [INSTALLED[:3]], indirect=True)
def test_pi_without_its_pinned_node_is_greyed(host_app):
    form = _local_form(host_app.test_client().get(TASK).get_data(as_text=True))
    offered, greyed = _offered(form)
    assert "codex" in offered and "pi" in greyed  # the host's node is too old for Pi: it runs on its own
    assert "pi</span>: pi is not installed on this host" in form
