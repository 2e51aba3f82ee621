"""Builds killed part-way leave nothing behind for long: the next snapshot build (a real `rlx snapshot build`
process) removes what dead builds left in the indexer's scratch space and the temp files dead writers left in the
store, and leaves alone what a build running right now in another process is using."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES

# A snapshot build caught part-way: its scratch folder holds a half-built database, and a store write is open.
BUILD_IN_PROGRESS = """
import os, sys, time
from pathlib import Path
from rlx.snapshot.scratch import build_folder
from rlx.store import atomic_file
cache, indexes = Path(sys.argv[1]), Path(sys.argv[2])
with build_folder(cache) as folder:
    (folder / f".catalog.db.{os.getpid()}.building").write_bytes(b"x" * 1_000_000)
    with atomic_file(indexes / f"held-{os.getpid()}.json.gz") as fh:
        fh.write(b"half an index")
        fh.flush()
        print(folder.name, flush=True)
        time.sleep(600)
"""


@pytest.fixture
def places(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(EXAMPLES, source)
    storage, cache = tmp_path / "data", tmp_path / "cache"
    (storage / "indexes").mkdir(parents=True)
    return {"source": source, "storage": storage, "cache": cache, "scratch": cache / "indexer",
            "indexes": storage / "indexes"}


@pytest.fixture
def builds(places):
    started = []

    def start() -> tuple[subprocess.Popen, str]:
        process = subprocess.Popen([sys.executable, "-c", BUILD_IN_PROGRESS, str(places["cache"]),
                                    str(places["indexes"])], stdout=subprocess.PIPE, text=True)
        started.append(process)
        return process, process.stdout.readline().strip()

    yield start
    for process in started:
        process.kill()
        process.wait(10)


def snapshot_build(places) -> subprocess.CompletedProcess:
    env = {**os.environ, "STORAGE_DIR": str(places["storage"]), "RLX_CACHE_DIR": str(places["cache"]),
           "RLX_SOURCE": str(places["source"])}
    return subprocess.run([sys.executable, "-m", "rlx.cli", "snapshot", "build"], env=env, capture_output=True,
                          text=True, timeout=180)


def temp_files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_the_next_build_removes_what_killed_builds_left_but_not_what_a_running_build_uses(places, builds):
    killed, killed_folder = builds()
    running, running_folder = builds()
    # What the code before this one left behind: a database per killed build, named after its pid.
    (places["scratch"] / "catalog-999999.db").write_bytes(b"y" * 1_000_000)
    (places["scratch"] / ".catalog-999999.db.999999.building").write_bytes(b"y" * 1_000_000)
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    assert (places["scratch"] / killed_folder).is_dir() and len(temp_files(places["indexes"])) == 2

    built = snapshot_build(places)

    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith("Published catalog-")
    left = sorted(p.name for p in places["scratch"].iterdir())
    assert left == sorted(["scratch.guard", running_folder, f"{running_folder}.lock"])
    assert [p.name for p in (places["scratch"] / running_folder).iterdir()] == [f".catalog.db.{running.pid}.building"]
    assert [name.split(".")[1] for name in temp_files(places["indexes"])] == [f"held-{running.pid}"]

    running.send_signal(signal.SIGKILL)
    running.wait(10)
    assert snapshot_build(places).returncode == 0

    assert [p.name for p in places["scratch"].iterdir()] == ["scratch.guard"]
    assert temp_files(places["indexes"]) == []
