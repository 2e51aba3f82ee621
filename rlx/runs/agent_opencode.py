"""OpenCode, run from what `deploy/agents/install.sh` put in RLX_AGENTS_DIR/npm: nothing fetched at run time.

The npm package `opencode-ai` installs a native program (its postinstall copies the platform build over the
launcher), so the sandbox needs no node. Harbor's class does the rest: it writes ~/.config/opencode/opencode.json
from the `opencode_config` given here, runs `opencode run --format=json`, and turns the JSON lines it tees to
/logs/agent/opencode.txt into the trial's ATIF trajectory at the end.

The model is a provider of our own that speaks chat completions (`@ai-sdk/openai-compatible`, built into OpenCode,
so no provider package is installed at run time) at the sandbox's forwarder, with the placeholder key. OpenCode's
own `openai` provider is not used: it asks for the Responses API. The OFFLINE switches keep it from reaching for
the internet at start (models.dev's list, its update check, its default plugins, language servers), and the title
agent is off, so a run spends the visitor's tokens on the task only.
"""

from __future__ import annotations

import json
import shlex

from harbor.agents.installed.opencode import OpenCode

from rlx.runs.installed_agents import BASE_URL, start_forwarder
from rlx.runs.sandbox_files import json_lines, live_text
from rlx.runs.view import atif_steps

PROVIDER = "rlx-relay"
LOG = "/logs/agent/opencode.txt"  # Harbor's run command tees OpenCode's JSON lines here
OFFLINE = {"OPENCODE_DISABLE_MODELS_FETCH": "true", "OPENCODE_DISABLE_AUTOUPDATE": "true",
           "OPENCODE_DISABLE_DEFAULT_PLUGINS": "true", "OPENCODE_DISABLE_LSP_DOWNLOAD": "true",
           "OPENCODE_DISABLE_SHARE": "true", "OPENCODE_DISABLE_CLAUDE_CODE": "true"}


def provider_config(model: str) -> dict:
    """OpenCode's settings for one model behind the relay: chat completions, the key read from OPENAI_API_KEY
    (the placeholder), no title calls, no sharing, no update checks."""
    return {"provider": {PROVIDER: {"npm": "@ai-sdk/openai-compatible", "name": "the run's model relay",
                                    "options": {"baseURL": BASE_URL, "apiKey": "{env:OPENAI_API_KEY}"},
                                    "models": {model: {"name": model}}}},
            "model": f"{PROVIDER}/{model}", "agent": {"title": {"disable": True}},
            "share": "disabled", "autoupdate": False}


def json_log_steps(agent, log: str) -> list[dict]:
    """An agent's steps so far, from the JSON lines it tees to `log` inside the sandbox, converted as its Harbor
    class converts them at the end (OpenCode's, and MiMo Code's, which descends from it); [] before its first
    whole step."""
    text = live_text(agent._environment, log)
    try:
        trajectory = agent._convert_events_to_trajectory(json_lines(text)) if text else None
    except Exception:  # a step half written: the next look finds it whole
        return []
    return atif_steps(trajectory.to_json_dict()) if trajectory else []


class PreinstalledOpenCode(OpenCode):
    """OpenCode from RLX_AGENTS_DIR/npm (deploy/agents/package-lock.json), its .bin folder first on the PATH."""

    def __init__(self, *args, program: str, model_name: str | None = None, **kwargs):
        self._program, self._environment = program, None
        model = (model_name or "").partition("/")[2] or (model_name or "")  # installed_config says openai/<model>
        kwargs["opencode_config"] = provider_config(model)
        super().__init__(*args, model_name=f"{PROVIDER}/{model}", **kwargs)
        self._extra_env = {**OFFLINE, **self._extra_env}

    def get_version_command(self) -> str | None:
        return f"{shlex.quote(self._program)} --version"

    def live_steps(self) -> list[dict]:
        return json_log_steps(self, LOG)

    async def install(self, environment) -> None:
        self._environment = environment
        program = shlex.quote(self._program)
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "opencode is not installed at {program}" >&2; exit 1; }}; '
            'command -v opencode >/dev/null || { echo "opencode is not on the PATH" >&2; exit 1; }'))
        await start_forwarder(self, environment)
