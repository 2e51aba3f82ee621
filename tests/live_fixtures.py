"""Pytest fixtures for live servers: a real `openenv` server (the bundled echo-env example, and a Harbor-shaped
one) on loopback, from the venv rlx.live.localenv makes once under .tools/; and a misbehaving Space server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stand_ins.bad_space import BadSpace

HARBOR_LIKE_DIR = Path(__file__).resolve().parent / "live_envs" / "harbor_like"
ECHO_SUBDOMAIN = "rlx-examples-echo-env"


def _start(app_dir=None, app="server.app:app"):
    from rlx.live.localenv import ECHO_ENV_DIR, LocalEnvError, start_server

    try:
        return start_server(app_dir or ECHO_ENV_DIR, app=app)
    except LocalEnvError as exc:
        pytest.fail(f"the real openenv server could not start: {exc}")


@pytest.fixture(scope="session")
def openenv_server():
    """The bundled echo-env served by a real openenv 0.10 server on 127.0.0.1; yields its base URL."""
    process, url = _start()
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="session")
def harbor_server():
    """A real openenv server shaped like openenv.harbor's harbor_env (tests/live_envs/harbor_like)."""
    process, url = _start(HARBOR_LIKE_DIR, app="app:app")
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture
def bad_space():
    with BadSpace() as space:
        yield space
