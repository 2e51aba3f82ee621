"""mini-swe-agent from what `deploy/agents/install.sh` put in RLX_AGENTS_DIR (rlx/runs/installed_agents.py says how
installed agents run). A module of its own because Harbor's MiniSweAgent imports litellm, several seconds of CPU:
only a mini-swe-agent run should pay for it, not every installed agent's."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from harbor.agents.installed.mini_swe_agent import MiniSweAgent

from rlx.runs.installed_agents import start_forwarder
from rlx.runs.sandbox_files import live_text
from rlx.runs.view import atif_steps


class PreinstalledMiniSweAgent(MiniSweAgent):
    """mini-swe-agent from RLX_AGENTS_DIR/mini-swe-agent (a venv on /usr/bin/python3)."""

    def __init__(self, *args, program: str, **kwargs):
        self._program, self._environment = program, None
        super().__init__(*args, **kwargs)

    def get_version_command(self) -> str | None:
        python = shlex.quote(str(Path(self._program).parent / "python"))
        return f"{python} -c 'import importlib.metadata as m; print(m.version(\"mini-swe-agent\"))'"

    def live_steps(self) -> list[dict]:
        """Its steps so far, from the log it rewrites after every step inside the sandbox (read from the host
        side, links not followed), converted as Harbor converts it at the end; [] when there is none yet."""
        from harbor.agents.installed.mini_swe_agent import convert_mini_swe_agent_to_atif

        text = live_text(self._environment, "/logs/agent/mini-swe-agent.trajectory.json")
        try:
            atif = convert_mini_swe_agent_to_atif(json.loads(text), self.session_id or "live") if text else None
        except Exception:  # half written: the next look finds it whole
            return []
        if atif is None:
            return []
        return atif_steps(atif.to_json_dict() if hasattr(atif, "to_json_dict") else atif.model_dump(mode="json"))

    async def install(self, environment) -> None:
        self._environment = environment
        program = shlex.quote(self._program)
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "mini-swe-agent is not installed at {program}" >&2; exit 1; }}; '
            f'mkdir -p "$HOME/.local/bin" && ln -sf {program} "$HOME/.local/bin/mini-swe-agent"'))
        await start_forwarder(self, environment)
