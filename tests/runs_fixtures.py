"""Fixtures for the rollout tests: the probe tasks as a source folder, indexed, and a real worker reading it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Worker

from rlx import create_app

PROBES_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "runs"
PROBES = "rlx-tests/probes"


@pytest.fixture
def probes_folder(tmp_path) -> Path:
    """A private copy of the probe tasks: a test may change a task (a port, a network mode) before indexing."""
    folder = tmp_path / "source"
    shutil.copytree(PROBES_FIXTURE, folder)
    return folder


def task_path(folder: Path, name: str) -> Path:
    return folder / "datasets" / PROBES / "tasks" / name


@pytest.fixture
def probes_app(make_config, redis_client, probes_folder):
    """The app on the probe tasks; call `index()` after changing any task."""
    app = create_app(make_config(RLX_SOURCE=str(probes_folder)))

    def index():
        from rlx.adapters import Env, pick

        with app.app_context():
            source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
            env = Env(source.repo_info("dataset", PROBES), source, store)
            return pick(env).build_index(env)

    app.index_probes = index
    return app


def start_worker(app, redis_client, extra_env: dict | None = None) -> subprocess.Popen:
    config = app.config["RLX"]
    env = {**os.environ, "REDIS_URL": config.redis_url, "STORAGE_DIR": str(config.storage_dir),
           "RLX_SOURCE": config.source, "SESSION_SECRET": "test-secret", **(extra_env or {})}
    process = subprocess.Popen([sys.executable, "-m", "workers.rq_worker"], env=env)
    deadline = time.monotonic() + 30
    while not Worker.all(connection=redis_client):
        assert process.poll() is None, "the worker exited at start"
        assert time.monotonic() < deadline, "the worker did not register within 30 s"
        time.sleep(0.05)
    return process


@pytest.fixture
def probes_worker(probes_app, redis_client):
    process = start_worker(probes_app, redis_client)
    yield process
    if process.poll() is None:
        process.terminate()
        process.wait(15)


def processes_matching(marker: str) -> list[int]:
    """Host pids whose command line contains `marker` (a sandboxed process is visible from the host)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and str(os.getpid()) != entry.name:
            found.append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]
