"""A real `openenv` server on this machine, for tests and `rlx demo`.

`openenv` pins fastmcp<4 (so mcp<2), which cannot share our environment: it gets its own virtual environment,
made once with uv under .tools/ (outside the tracked files) with the lean install (openenv without its UI and
CLI dependencies). A file lock keeps two processes from building it at once; a marker file says it is complete.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

REPO = Path(__file__).resolve().parent.parent.parent
VENV_DIR = REPO / ".tools" / "openenv-venv"
ECHO_ENV_DIR = REPO / "examples" / "spaces" / "rlx-examples" / "echo-env"
OPENENV = "openenv==0.10.0"
SERVER_DEPS = ("fastapi", "uvicorn", "pydantic", "fastmcp>=3,<4", "websockets", "httpx", "typing_extensions",
               "packaging")
MARKER = ".rlx-ready"
BUILD_TIMEOUT_S = 600


class LocalEnvError(Exception):
    """The server's environment could not be made or the server did not start; the message says why."""


def _uv() -> str | None:
    local = REPO / ".tools" / "bin" / "uv"
    return str(local) if local.exists() else shutil.which("uv")


def venv_ready(venv: Path = VENV_DIR) -> bool:
    """The venv is there with the wanted packages: ensure_venv has nothing to make."""
    marker = venv / MARKER
    return marker.exists() and marker.read_text() == " ".join((OPENENV, *SERVER_DEPS))


def ensure_venv(venv: Path = VENV_DIR) -> Path:
    """The venv holding openenv, made on first use; LocalEnvError with the reason when it cannot be made."""
    wanted = " ".join((OPENENV, *SERVER_DEPS))
    marker = venv / MARKER
    if venv_ready(venv):
        return venv
    uv = _uv()
    if uv is None:
        raise LocalEnvError("uv is not installed (run `make test` or `make demo` once to put it in .tools/).")
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / "openenv-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and marker.read_text() == wanted:
            return venv
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "VIRTUAL_ENV": str(venv)}
        env.pop("UV_PROJECT_ENVIRONMENT", None)
        python = ["--python", str(venv / "bin" / "python")]
        steps = [[uv, "venv", "--quiet", "--clear", "--python", sys.executable, str(venv)],
                 [uv, "pip", "install", "--quiet", *python, "--no-deps", OPENENV],
                 [uv, "pip", "install", "--quiet", *python, *SERVER_DEPS]]
        for step in steps:
            try:
                done = subprocess.run(step, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise LocalEnvError(f"making the openenv environment failed ({exc}).") from None
            if done.returncode != 0:
                last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                raise LocalEnvError(f"making the openenv environment failed: {last[0][:300]}")
        marker.write_text(wanted)
    return venv


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(venv: Path, port: int, app: str = "server.app:app") -> list[str]:
    return [str(venv / "bin" / "python"), "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "warning"]


def start_server(app_dir: Path = ECHO_ENV_DIR, port: int | None = None, app: str = "server.app:app",
                 venv: Path | None = None, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """Start `app` from `app_dir` on loopback; (process, base URL) once /health answers (LocalEnvError if not)."""
    venv = venv or ensure_venv()
    port = port or free_port()
    log = tempfile.TemporaryFile()  # a file, not a pipe: a pipe nobody reads would stall a chatty server
    process = subprocess.Popen(server_command(venv, port, app), cwd=app_dir, env={**os.environ, **(env or {})},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    process.log = log
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
    except LocalEnvError:
        process.kill()
        process.wait()
        raise
    return process, url


def wait_healthy(url: str, process: subprocess.Popen | None = None, deadline_s: float = 60.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            log = getattr(process, "log", None)
            err = b""
            if log is not None:
                log.seek(0)
                err = log.read()
            err = err.decode(errors="replace").strip()
            raise LocalEnvError(f"the openenv server exited at start: {err.splitlines()[-1:] or 'no output'}")
        try:
            if httpx2.get(f"{url}/health", timeout=1.0, trust_env=False).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise LocalEnvError(f"the openenv server at {url} did not answer /health within {deadline_s:g} s.")
