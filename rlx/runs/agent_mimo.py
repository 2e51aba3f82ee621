"""MiMo Code (`mimo`), the harness Xiaomi released with MiMo, run from RLX_AGENTS_DIR/mimo: nothing fetched.

`deploy/agents/install.sh` installs its pinned linux-x64 build (one native program, deploy/agents/mimo/) and
prepares a migrated copy of its database beside it. Harbor's class does the rest: it writes
~/.config/mimocode/mimocode.json from the `mimo_config` given here, runs `mimo run --format=json` with its data and
state under /logs/agent/mimo, and turns the JSON lines it tees to /logs/agent/mimo.txt into the trial's ATIF
trajectory at the end. Here only the install step changes: the program is linked where Harbor's command looks for
it ($HOME/.mimocode/bin), the prepared database is copied into the run's data folder (a fresh one would be created
and migrated on every start), and the model forwarder is started.

MiMo Code descends from OpenCode and reads the same provider settings, so the model is the same provider of our own
(chat completions at the sandbox's forwarder, the placeholder key: rlx/runs/agent_opencode.py). Its OFFLINE
switches keep it from reaching for the internet at start (model lists, updates, plugins, skills, language servers,
analytics); the sandbox has no network anyway, and each refused reach would cost time.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from harbor.agents.installed.mimo import MiMo

from rlx.runs.agent_opencode import PROVIDER, json_log_steps, provider_config
from rlx.runs.installed_agents import start_forwarder

LOG = "/logs/agent/mimo.txt"  # Harbor's run command tees MiMo Code's JSON lines here
DATA = "/logs/agent/mimo/xdg-data/mimocode"  # Harbor's XDG_DATA_HOME for it, plus the program's own folder name
OFFLINE = {"MIMOCODE_DISABLE_MODELS_FETCH": "true", "MIMOCODE_DISABLE_AUTOUPDATE": "true",
           "MIMOCODE_DISABLE_DEFAULT_PLUGINS": "true", "MIMOCODE_DISABLE_LSP_DOWNLOAD": "true",
           "MIMOCODE_DISABLE_SHARE": "true", "MIMOCODE_DISABLE_CLAUDE_CODE": "true",
           "MIMOCODE_DISABLE_OFFICIAL_SKILLS": "true", "MIMOCODE_ENABLE_ANALYSIS": "false"}


def prepared_database(program: str) -> Path:
    """Where install.sh leaves the migrated database: RLX_AGENTS_DIR/mimo/data, beside node_modules."""
    root = Path(program).parents[4]  # mimo/node_modules/@mimo-ai/mimocode-linux-x64/bin/mimo
    return root / "data" / "mimocode.db"


def pinned_version(program: str) -> str | None:
    """The installed package's version, read on the host (asking the program costs seconds per run)."""
    try:
        return json.loads((Path(program).parents[1] / "package.json").read_text()).get("version")
    except (OSError, ValueError):
        return None


class PreinstalledMiMo(MiMo):
    """MiMo Code from RLX_AGENTS_DIR/mimo (deploy/agents/mimo/package-lock.json)."""

    def __init__(self, *args, program: str, model_name: str | None = None, **kwargs):
        self._program, self._environment = program, None
        model = (model_name or "").partition("/")[2] or (model_name or "")  # installed_config says openai/<model>
        kwargs["mimo_config"] = provider_config(model)
        super().__init__(*args, model_name=f"{PROVIDER}/{model}", **kwargs)
        self._extra_env = {**OFFLINE, **self._extra_env}
        self._version = self._version or pinned_version(program)

    def live_steps(self) -> list[dict]:
        return json_log_steps(self, LOG)

    async def install(self, environment) -> None:
        self._environment = environment
        program = shlex.quote(self._program)
        database = prepared_database(self._program)
        seed = (f"mkdir -p {DATA} && cp {shlex.quote(str(database))} {DATA}/mimocode.db"
                if database.is_file() else "true")  # without it, MiMo Code makes its own, slower
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "mimo is not installed at {program}" >&2; exit 1; }}; '
            f'mkdir -p "$HOME/.mimocode/bin" && ln -sf {program} "$HOME/.mimocode/bin/mimo" && {seed}'))
        await start_forwarder(self, environment)
