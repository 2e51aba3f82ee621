"""Harbor's installed agents, run from what `deploy/agents/install.sh` put in RLX_AGENTS_DIR: nothing fetched.

Harbor's classes install their agent inside the sandbox at run time (curl | sh, uv tool install, npm -g). These
subclasses replace only that step: the agents folder is linked read-only into the sandbox at its own path (so
the venv's and node's absolute paths hold), and `install` puts the program on the PATH Harbor's run command uses
and starts the model forwarder. Everything else, from the command line to the trajectory, is Harbor's.

The forwarder is a few lines of the system Python, started in the background inside the sandbox: it listens on
the sandbox's own loopback (FORWARD_PORT) and pipes each connection to the run's model relay, whose socket the
worker links in at rlx/runs/model_relay.py's SANDBOX_DIR. The agent is pointed at http://127.0.0.1:FORWARD_PORT/v1
with a placeholder key; the relay adds the real one outside the sandbox.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

from harbor.agents.installed.codex import Codex

from rlx.runs.model_relay import SANDBOX_DIR, SOCKET_NAME

FORWARD_PORT = 18080
BASE_URL = f"http://127.0.0.1:{FORWARD_PORT}/v1"
PLACEHOLDER_KEY = "held-by-the-relay"  # what the agent sends; the relay replaces it with the visitor's key
FORWARDER = "/installed-agent/rlx-model-forward.py"
_FORWARDER_SOURCE = '''\
import socket, sys, threading

def pipe(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    for end in (source, sink):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

def serve(client, path):
    upstream = socket.socket(socket.AF_UNIX)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    pipe(upstream, client)

listener = socket.create_server(("127.0.0.1", int(sys.argv[1])))
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection, sys.argv[2]), daemon=True).start()
'''


async def start_forwarder(agent, environment) -> None:
    """Start the forwarder inside the sandbox and wait until it accepts connections (at most 5 s)."""
    with tempfile.TemporaryDirectory(prefix="rlx-forward-") as folder:
        script = Path(folder) / "forward.py"
        script.write_text(_FORWARDER_SOURCE)
        await environment.upload_file(script, FORWARDER)
    socket_path = f"{SANDBOX_DIR}/{SOCKET_NAME}"
    await agent.exec_as_agent(environment, command=(
        f"setsid /usr/bin/python3 {FORWARDER} {FORWARD_PORT} {shlex.quote(socket_path)} "
        "</dev/null >/dev/null 2>&1 &"))
    await agent.exec_as_agent(environment, command=(
        "for i in $(seq 50); do /usr/bin/python3 -c \"import socket; "
        f"socket.create_connection(('127.0.0.1', {FORWARD_PORT}), 1).close()\" 2>/dev/null && exit 0; "
        "sleep 0.1; done; echo 'the model forwarder did not start' >&2; exit 1"))


class PreinstalledCodex(Codex):
    """Codex from RLX_AGENTS_DIR/npm (deploy/agents/package-lock.json): a node launcher over its native binary,
    run with the host's /usr/bin/node. Its folder goes first on the PATH (the run's `env`), so Harbor's
    `codex exec` finds it; Codex's own sandbox stays off, as Harbor runs it, inside ours."""

    def __init__(self, *args, program: str, **kwargs):
        self._program = program
        super().__init__(*args, **kwargs)

    async def install(self, environment) -> None:
        program = shlex.quote(self._program)
        await self.exec_as_agent(environment, command=(
            f'test -x {program} || {{ echo "codex is not installed at {program}" >&2; exit 1; }}; '
            'command -v codex >/dev/null || { echo "codex is not on the PATH" >&2; exit 1; }'))
        await start_forwarder(self, environment)
