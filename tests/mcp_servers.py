"""Real app servers for the MCP tests: gunicorn (gevent, the production path) on loopback, on the test Redis.

One source folder with two Harbor examples, a dataset whose task plants answers everywhere
(tests/fixtures/answers/task), and a third example left unindexed; two server processes share Redis and the store.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from rlx import create_app
from rlx.config import Config
from tests.conftest import EXAMPLES, index_now

FIXTURE_TASK = Path(__file__).parent / "fixtures" / "answers" / "task"
INDEXED = ("rlx-examples/terminal-basics", "rlx-examples/python-bugfix", "adv/leaky")
UNINDEXED = "rlx-examples/science-puzzles"


@dataclass
class World:
    source: Path
    env: dict
    app: object
    urls: list[str] = field(default_factory=list)
    processes: list = field(default_factory=list)

    def endpoint(self, env_id: str, server: int = 0) -> str:
        return f"{self.urls[server]}/mcp/d/{env_id}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_world(root: Path, redis_url: str, servers: int = 2) -> World:
    source = root / "source"
    for env_id in (*INDEXED[:2], UNINDEXED):
        shutil.copytree(EXAMPLES / "datasets" / env_id, source / "datasets" / env_id)
    leaky = source / "datasets" / "adv" / "leaky"
    shutil.copytree(FIXTURE_TASK, leaky / "tasks" / "planted")
    (leaky / "README.md").write_text("---\ntags: [harbor]\n---\n# Leaky\n")
    env = {"STORAGE_DIR": str(root / "data"), "REDIS_URL": redis_url, "RLX_SOURCE": str(source),
           "SESSION_SECRET": "test-secret"}
    app = create_app(Config.from_env(env))
    for env_id in INDEXED:
        index_now(app, env_id)
    world = World(source, env, app)
    for _ in range(servers):
        start_server(world)
    return world


def start_server(world: World) -> str:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "-b",
                                f"127.0.0.1:{port}", "--log-level", "warning", "rlx:create_app()"],
                               env={**os.environ, **world.env})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            break
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
            time.sleep(0.1)
    world.urls.append(url)
    world.processes.append(process)
    return url


def stop_world(world: World) -> None:
    for process in world.processes:
        process.terminate()
    for process in world.processes:
        process.wait(10)
