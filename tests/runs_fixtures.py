"""Fixtures for the rollout tests: the probe tasks as a source folder, indexed, and a real worker reading it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rlx import create_app
from tests.conftest import index_now
from tests.processes import config_env, stop_all
from tests.processes import start_worker as start_worker_process

PROBES_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "runs"
PROBES = "rlx-tests/probes"
# The probe `sleeper` runs `sleep 4343`, and these tests look for it among all of the host's processes: under
# pytest-xdist they share one worker, one after another, so none sees (or waits for) another's sleeper.
SLEEPER_ALONE = pytest.mark.xdist_group("sleeper-probe")


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
    app.index_probes = lambda: index_now(app, PROBES)
    return app


def start_worker(app, redis_client, extra_env: dict | None = None) -> subprocess.Popen:
    """A real worker on every queue reading `app`'s store and source, once it has registered in Redis."""
    config = app.config["RLX"]
    env = {**os.environ, **config_env(config, config.redis_url, **(extra_env or {}))}
    return start_worker_process(env, redis_client)[0]


@pytest.fixture
def probes_worker(probes_app, redis_client):
    process = start_worker(probes_app, redis_client)
    yield process
    stop_all([process])


def sandboxes_of(pid: int) -> set[int]:
    """The bubblewrap processes under a worker: its runs' sandboxes (not other sandboxes on this machine)."""
    from tests.processes import descendants_of

    found = set()
    for child in descendants_of(pid):
        try:
            if b"bwrap" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.add(child)
        except OSError:
            pass
    return found


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
