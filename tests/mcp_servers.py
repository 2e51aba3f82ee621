"""Real app servers for the MCP tests: gunicorn (gevent, the production path, via tests/servers.py) on loopback, on
the test Redis.

`build_world`: one source folder with two Harbor examples, a dataset whose task plants answers everywhere
(tests/fixtures/answers/task), and a third example left unindexed. `copied_world`: bundled examples copied as they
are. `serving` runs one or more server processes over a world; they share Redis and the store.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rlx import create_app
from rlx.config import Config
from tests.conftest import EXAMPLES, index_now
from tests.servers import gunicorn

FIXTURE_TASK = Path(__file__).parent / "fixtures" / "answers" / "task"
INDEXED = ("rlx-examples/terminal-basics", "rlx-examples/python-bugfix", "adv/leaky")
UNINDEXED = "rlx-examples/science-puzzles"


@dataclass
class World:
    source: Path
    env: dict
    app: object
    urls: list[str] = field(default_factory=list)

    def endpoint(self, env_id: str, server: int = 0) -> str:
        return f"{self.urls[server]}/mcp/d/{env_id}"


def copied_world(root: Path, redis_url: str, env_ids: Iterable[str], indexed: Iterable[str] | None = None) -> World:
    """A world whose source folder holds copies of the bundled datasets `env_ids`, of which `indexed` (all unless
    named) are indexed."""
    env_ids = list(env_ids)
    source = root / "source"
    for env_id in env_ids:
        shutil.copytree(EXAMPLES / "datasets" / env_id, source / "datasets" / env_id)
    env = {"STORAGE_DIR": str(root / "data"), "REDIS_URL": redis_url, "RLX_SOURCE": str(source),
           "SESSION_SECRET": "test-secret"}
    world = World(source, env, create_app(Config.from_env(env)))
    for env_id in env_ids if indexed is None else indexed:
        index_now(world.app, env_id)
    return world


def build_world(root: Path, redis_url: str) -> World:
    world = copied_world(root, redis_url, (*INDEXED[:2], UNINDEXED), indexed=())
    leaky = world.source / "datasets" / "adv" / "leaky"
    shutil.copytree(FIXTURE_TASK, leaky / "tasks" / "planted")
    (leaky / "README.md").write_text("---\ntags: [harbor]\n---\n# Leaky\n")
    for env_id in INDEXED:
        index_now(world.app, env_id)
    return world


@contextmanager
def serving(world: World, servers: int = 1):
    """`servers` gunicorn processes over `world` (their URLs in world.urls) for as long as the block runs."""
    with ExitStack() as running:
        world.urls[:] = [running.enter_context(gunicorn(world.env)) for _ in range(servers)]
        yield world
