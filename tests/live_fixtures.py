"""Pytest fixtures for live servers: a real `openenv` server (the bundled echo-env example, and a Harbor-shaped
one) on loopback, from the venv rlx.live.localenv makes once under .tools/; and a misbehaving Space server."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.stand_ins.bad_space import BadSpace

HARBOR_LIKE_DIR = Path(__file__).resolve().parent / "live_envs" / "harbor_like"
ONE_SEAT_DIR = Path(__file__).resolve().parent / "live_envs" / "one_seat_game"
FRAMES_DIR = Path(__file__).resolve().parent / "live_envs" / "frames"
PLAIN_DIR = Path(__file__).resolve().parent / "live_envs" / "plain_api"  # routes only, no OpenEnv protocol
ECHO_SUBDOMAIN = "rlx-examples-echo-env"


@contextmanager
def openenv_app(app_dir=None, app="server.app:app"):
    """`app` from `app_dir` (the bundled echo-env by default) served by a real openenv server on 127.0.0.1;
    yields its base URL while the block runs."""
    from rlx.live.localenv import ECHO_ENV_DIR, LocalEnvError, start_server

    try:
        process, url = start_server(app_dir or ECHO_ENV_DIR, app=app)
    except LocalEnvError as exc:
        pytest.fail(f"the real openenv server could not start: {exc}")
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="session")
def openenv_server():
    """The bundled echo-env served by a real openenv 0.10 server on 127.0.0.1; yields its base URL."""
    with openenv_app() as url:
        yield url


@pytest.fixture(scope="session")
def harbor_server():
    """A real openenv server shaped like openenv.harbor's harbor_env (tests/live_envs/harbor_like)."""
    with openenv_app(HARBOR_LIKE_DIR, app="app:app") as url:
        yield url


@pytest.fixture(scope="session")
def one_seat_server():
    """Noughts and crosses on a real openenv server that takes one /ws session (tests/live_envs/one_seat_game)."""
    with openenv_app(ONE_SEAT_DIR, app="app:app") as url:
        yield url


@pytest.fixture(scope="session")
def frames_server():
    """A real openenv server whose observations are frames, as Atari's are (tests/live_envs/frames)."""
    with openenv_app(FRAMES_DIR, app="app:app") as url:
        yield url


@pytest.fixture(scope="session")
def plain_server():
    with openenv_app(PLAIN_DIR, app="app:app") as url:
        yield url


@pytest.fixture
def bad_space():
    with BadSpace() as space:
        yield space
