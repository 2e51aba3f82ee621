"""Start a group of processes together and stop them together: what `rlx demo` and `rlx serve` run.

Every child gets the parent-death signal, so even a `kill -9` of `rlx` leaves no orphan; Ctrl-C or SIGTERM stops
the web first, then the worker, then Redis; if any child dies on its own, the rest are stopped and `rlx` exits
non-zero with that child's name.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass  # not Linux: Ctrl-C still reaches the whole process group


@dataclass
class Child:
    name: str
    args: list[str]
    process: subprocess.Popen | None = None


@dataclass
class Supervisor:
    env: dict
    children: list[Child] = field(default_factory=list)
    stopping: bool = False

    def start(self, name: str, args: list[str]) -> None:
        child = Child(name, args)
        # Own session: a terminal's Ctrl-C reaches only us, and we stop the children in order.
        child.process = subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL, start_new_session=True,
                                         preexec_fn=die_with_parent)
        self.children.append(child)

    def wait(self) -> int:
        """Block until a signal asks us to stop (0) or a child exits on its own (1)."""
        received = []

        def on_signal(signum, frame):
            received.append(signum)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            while not received:
                for child in self.children:
                    if child.process.poll() is not None:
                        print(f"rlx: the {child.name} stopped (exit code {child.process.returncode}); "
                              "stopping the rest.", file=sys.stderr)
                        return 1
                time.sleep(0.2)
            return 0
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self.stop()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop children in reverse start order: the web first, Redis-dependent parts before Redis."""
        if self.stopping:
            return
        self.stopping = True
        for child in reversed(self.children):
            process = child.process
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
