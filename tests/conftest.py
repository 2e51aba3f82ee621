"""Test-wide setup: an isolated environment per test, a real Redis, apps from the factory, and the stand-ins."""

import os
import shutil
import sys

# huggingface_hub reads these at import time: no telemetry, no Xet, no implicit server token, a private cache.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")
os.environ.setdefault("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from rlx import create_app  # noqa: E402
from rlx.config import Config  # noqa: E402
from rlx.queue.embedded import EmbeddedRedis  # noqa: E402

pytest_plugins = ["tests.stand_ins.hub_fixtures", "tests.live_fixtures"]

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_OUR_VARIABLES = ("STORAGE_DIR", "RLX_CACHE_DIR", "REDIS_URL", "HF_ENDPOINT", "HF_VIEWER_URL", "RLX_SOURCE",
                  "SESSION_SECRET", "RLX_PUBLIC_URL", "RLX_SPACE_HOSTS", "OPENID_PROVIDER_URL",
                  "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_SCOPES", "ADMIN_ORG",
                  "METRICS_TOKEN", "RLX_SNAPSHOT_CHECK_S", "PROMETHEUS_MULTIPROC_DIR",
                  "RLX_HF_SANDBOX_START_TIMEOUT", "RLX_PREVIEWS_MAX_MB", "RLX_WORKER_HEARTBEAT_S",
                  "RLX_WORKER_LAPSE_S", "RLX_JUDGE_ENDPOINT", "RLX_JUDGE_KEY")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    """Config comes from the environment: no test sees another's settings (or the developer's)."""
    for name in _OUR_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """One real redis-server (the embedded one) for the whole run."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def redis_client(redis_url):
    from rlx.queue.connection import connect

    client = connect(redis_url)
    client.flushall()
    return client


@pytest.fixture
def make_config(tmp_path, redis_url):
    """A Config for a fresh STORAGE_DIR; keyword arguments override environment variables."""

    def make(**env):
        values = {"STORAGE_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url, "SESSION_SECRET": "test-secret",
                  "RLX_SOURCE": str(EXAMPLES), **env}
        return Config.from_env({k: v for k, v in values.items() if v is not None})

    return make


@pytest.fixture
def app(make_config, redis_client):
    return create_app(make_config())


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def running_worker(make_config, redis_url, redis_client):
    """A real `rlx worker` process on the test Redis, stopped after the test."""
    from tests.processes import config_env, start_worker, stop_all

    process, _ = start_worker({**os.environ, **config_env(make_config(), redis_url)}, redis_client)
    yield process
    stop_all([process])


HARBOR_EXAMPLES = ("rlx-examples/terminal-basics", "rlx-examples/python-bugfix", "rlx-examples/science-puzzles")


def index_now(app, repo_id: str):
    """Build a dataset's index in this process (what the worker's job does), and return it."""
    from rlx.adapters import Env, choose

    with app.app_context():
        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        env = Env(source.repo_info("dataset", repo_id), source, store)
        return choose(env).build_index(env)  # the choice the index job makes


@pytest.fixture(scope="session")
def examples_indexed(tmp_path_factory, redis_url):
    """A store holding every Harbor example's index, made once per test process by the indexing path itself:
    indexing them cost each of some 150 tests half a second of CPU. Tests take copies (with_examples_indexed)."""
    data = tmp_path_factory.mktemp("examples-indexed") / "data"
    app = create_app(Config.from_env({"STORAGE_DIR": str(data), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(EXAMPLES)}))
    for repo_id in HARBOR_EXAMPLES:
        index_now(app, repo_id)
    return app.extensions["rlx.store"]


def with_examples_indexed(app, examples_indexed):
    """`app`'s store given a copy of every Harbor example's index and pack, as if it had just indexed them."""
    store = app.extensions["rlx.store"]
    for folder in ("indexes_dir", "packs_dir"):
        shutil.copytree(getattr(examples_indexed, folder), getattr(store, folder), dirs_exist_ok=True)
    return app


@pytest.fixture
def indexed_app(app, examples_indexed):
    """The app on the bundled examples, with every Harbor example already indexed."""
    return with_examples_indexed(app, examples_indexed)


@pytest.fixture
def indexed_client(indexed_app):
    return indexed_app.test_client()



@pytest.fixture(autouse=True, scope="module")
def _chromium_per_module():
    """The tests of a module share one Chromium (tests/servers.py), closed when the module is done: while
    Playwright runs, it holds the thread's event loop, and a later module's asyncio.run() would refuse to start."""
    yield
    servers = sys.modules.get("tests.servers")
    if servers is not None:
        servers.stop_chromium()
