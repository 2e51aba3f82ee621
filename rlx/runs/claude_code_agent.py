"""Claude Code, run from what `deploy/agents/install.sh` put in RLX_AGENTS_DIR (npm's native build: no node needed).

Harbor's class does everything but the install: the command line, its config folder under /logs/agent/sessions, and
the conversion of its session log to ATIF. It is pointed at the sandbox's model forwarder with a placeholder key;
the run's relay answers its Messages requests from the visitor's chat-completions endpoint
(rlx/runs/anthropic_bridge.py) and adds the real key outside the sandbox. Its updater, telemetry, error reports
and other calls home are switched off: a sandbox without network would only wait on them.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

from harbor.agents.installed.claude_code import ClaudeCode

from rlx.runs.installed_agents import FORWARD_PORT, PLACEHOLDER_KEY, start_forwarder
from rlx.runs.sandbox_files import copy_dir_out
from rlx.runs.view import atif_steps

BASE_URL = f"http://127.0.0.1:{FORWARD_PORT}"  # Anthropic's client adds /v1/messages itself
SESSIONS = "/logs/agent/sessions/projects"  # where Harbor's run command has Claude Code keep its session log
QUIET = {"DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
         "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
         "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1"}


def model_env() -> dict[str, str]:
    """What the run's AgentConfig adds to Claude Code's environment: the placeholder key and the switches."""
    return {"ANTHROPIC_API_KEY": PLACEHOLDER_KEY, **QUIET}


class PreinstalledClaudeCode(ClaudeCode):
    """Claude Code from RLX_AGENTS_DIR/npm (deploy/agents/package-lock.json), linked where Harbor's run command
    looks for it ($HOME/.local/bin)."""

    def __init__(self, *args, program: str, **kwargs):
        self._program, self._environment = program, None
        super().__init__(*args, **kwargs)

    def get_version_command(self) -> str | None:
        return f"{shlex.quote(self._program)} --version"

    async def install(self, environment) -> None:
        self._environment = environment
        program = shlex.quote(self._program)
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "claude-code is not installed at {program}" >&2; exit 1; }}; '
            f'mkdir -p "$HOME/.local/bin" && ln -sf {program} "$HOME/.local/bin/claude"'))
        await start_forwarder(self, environment)

    def populate_context_post_run(self, context) -> None:
        """Harbor's reading of the session, less Claude Code's own cost: it prices every model at Anthropic's
        rates ("costBasis": "unknown" for a model it does not know), which says nothing of the visitor's endpoint;
        the record then takes a published price or says "unknown" (rlx/runs/usage.py)."""
        super().populate_context_post_run(context)
        context.cost_usd = None

    def live_steps(self) -> list[dict]:
        """Its steps so far, from the session log it appends to inside the sandbox (read from the host side,
        links not followed), converted as Harbor converts it at the end; [] when there is none yet."""
        sandbox = getattr(self._environment, "_sandbox", None)
        if sandbox is None or not sandbox.running:
            return []
        with tempfile.TemporaryDirectory(prefix="rlx-live-") as folder:
            try:
                copy_dir_out(sandbox.root, SESSIONS, Path(folder) / "sessions" / "projects",
                             include=lambda path: path.endswith(".jsonl"), max_bytes=64 * 1024 * 1024)
                trajectory = self.convert_trajectory(Path(folder))
            except Exception:  # not written yet, or a line half written: the next look finds it whole
                return []
        return atif_steps(trajectory.to_json_dict()) if trajectory else []
