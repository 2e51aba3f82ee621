"""What the figures were measured on: cores, CPU, memory, OS, Python, SQLite and the tools' versions."""

from __future__ import annotations

import os
import platform
import shutil
import sqlite3
import subprocess
import sys
from importlib import metadata
from pathlib import Path


def describe() -> dict:
    return {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "memory": _memory(),
        "os": _os_name(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "tools": {name: _version(name) for name in ("gunicorn", "gevent", "flask", "datasette", "uvicorn",
                                                     "playwright")} | {"wrk": _wrk_version(),
                                                                        "chromium": _chromium_version()},
        "executable": sys.executable,
        "tree": tree(),
    }


def tree() -> str:
    """The commit measured, and whether the work tree differed from it (read-only git calls)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    app_files = [line for line in changed if line[3:].startswith(("rlx/", "workers/", "wsgi.py"))]
    return commit + (f" with {len(app_files)} uncommitted change(s) to the app" if app_files else "")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.platform()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _wrk_version() -> str:
    if not shutil.which("wrk"):
        return "not installed"
    # wrk prints its version in the usage text, on stderr or stdout depending on the build.
    run = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    text = (run.stdout + run.stderr).strip().splitlines()
    return text[0].split(" [")[0].removeprefix("wrk ") if text else "unknown"


def _chromium_version() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        return "not installed"
    run = subprocess.run([path, "--version"], capture_output=True, text=True)
    return run.stdout.strip() or "unknown"
