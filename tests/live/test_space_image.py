"""The Space image without Docker: the Dockerfile's own command, with the environment it sets, runs here (against a
temporary /data and the embedded Redis) and the app comes up ready with its two workers; its HEALTHCHECK passes;
SIGTERM stops it all. And the Space's README front matter says what the Space needs."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from pathlib import Path

import yaml

from tests.cluster import call, free_port, wait_for
from tests.conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
APP = "/app"  # the Dockerfile's WORKDIR: the repository root here


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def image_env() -> dict:
    env = {}
    for instruction, args in dockerfile():
        if instruction == "ENV":
            for pair in shlex.split(args):
                name, _, value = pair.partition("=")
                env[name] = re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), os.environ.get(m.group(1), "")), value)
    return env


def here(path: str) -> str:
    return path.replace(APP, str(ROOT))


def test_the_image_command_runs_here_and_comes_up_ready(tmp_path):
    steps = dockerfile()
    command = json.loads(next(args for instruction, args in steps if instruction == "CMD"))
    env = {name: here(value) for name, value in image_env().items()}
    port = free_port()
    # What differs from the Space: a temporary /data and home, loopback, and the bundled catalog (no Hub here).
    env.update(STORAGE_DIR=str(tmp_path / "data"), HOME=str(tmp_path / "home"), RLX_CACHE_DIR=str(tmp_path / "cache"),
               RLX_SOURCE=str(EXAMPLES), PORT=str(port), RLX_HOST="127.0.0.1")
    entry = subprocess.Popen([here(part) for part in command], env={**os.environ, **env}, cwd=tmp_path,
                             stdout=open(tmp_path / "entry.log", "wb"), stderr=subprocess.STDOUT)
    try:
        def ready():
            assert entry.poll() is None, (tmp_path / "entry.log").read_text()[-2000:]
            answer = call(port, "GET", "/readyz", timeout=5)
            return answer.status == 200 and answer.json()

        body = wait_for("the image's command to serve /readyz", ready, timeout=120, every=0.5)
        assert body["checks"]["workers"]["count"] == 2
        assert (tmp_path / "data").is_dir() and (tmp_path / "cache").is_dir()

        healthcheck = next(args for instruction, args in steps if instruction == "HEALTHCHECK")
        probe = healthcheck.split(" CMD ", 1)[1]
        assert subprocess.run(probe, shell=True, env={**os.environ, **env}, timeout=30).returncode == 0

        entry.send_signal(signal.SIGTERM)
        assert entry.wait(30) == 0
        assert call(port, "GET", "/healthz", timeout=2).status == 0
    finally:
        if entry.poll() is None:
            entry.kill()
            entry.wait()


def test_the_image_is_built_from_the_lock_and_runs_as_a_user():
    steps = dockerfile()
    assert steps[0] == ("FROM", "python:3.12-slim")
    syncs = [args for instruction, args in steps if instruction == "RUN" and "uv sync" in args]
    assert syncs and all("--frozen" in args for args in syncs)
    users = [args for instruction, args in steps if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert image_env()["STORAGE_DIR"] == "/data"


def test_the_space_front_matter_matches_the_image():
    text = (ROOT / "README.md").read_text()
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n", 2)[1])
    assert meta["sdk"] == "docker"
    exposed = next(args for instruction, args in dockerfile() if instruction == "EXPOSE")
    assert str(meta["app_port"]) == exposed == image_env()["PORT"]
    assert meta["hf_oauth"] is True
    assert {"read-repos", "gated-repos", "read-memberships", "jobs"} <= set(meta["hf_oauth_scopes"])
