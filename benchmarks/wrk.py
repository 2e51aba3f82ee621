"""Running wrk against a server on loopback and reading its figures back as numbers.

A Lua script (wrk_paths.lua) cycles each connection through a list of paths and prints one JSON line with the
latency percentiles in microseconds, so nothing is parsed from wrk's human-readable text.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).with_name("wrk_paths.lua")
# What a browser sends: the app may compress, so the figures include that cost (Datasette ignores it).
ACCEPT_ENCODING = "gzip, deflate, br"


@dataclass
class WrkResult:
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    errors: int  # connect, read, write and timeout errors, and non-2xx/3xx answers

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def available() -> bool:
    return shutil.which("wrk") is not None


def run(base_url: str, paths: list[str], connections: int, seconds: float, threads: int | None = None,
        timeout_s: int = 30) -> WrkResult:
    """`connections` keep-alive connections for `seconds`, each cycling through `paths` from its own start."""
    threads = threads or min(2, connections)
    with tempfile.NamedTemporaryFile("w", suffix=".paths", delete=False) as fh:
        fh.write("\n".join(paths) + "\n")
        paths_file = fh.name
    try:
        command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
                   "--timeout", f"{timeout_s}s", "-s", str(SCRIPT), base_url, "--", paths_file, ACCEPT_ENCODING]
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + timeout_s + 30)
    finally:
        Path(paths_file).unlink(missing_ok=True)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("{\"requests\"")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    data = json.loads(line)
    return WrkResult(requests=data["requests"], seconds=data["duration_us"] / 1e6, p50_ms=data["p50"] / 1000,
                     p90_ms=data["p90"] / 1000, p99_ms=data["p99"] / 1000, max_ms=data["max"] / 1000,
                     errors=sum(data["errors"].values()))
