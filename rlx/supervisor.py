"""Start a group of processes together, keep them running, and stop them together: what `rlx demo` and `rlx serve`
run.

Every child gets the parent-death signal, so even a `kill -9` of `rlx` leaves no orphan. Ctrl-C or SIGTERM stops
the web first, then the workers, then Redis. A child marked `restart` (Redis, a worker) that dies is started again
after a short wait that doubles with each quick death, and a line says so; after RESTART_LIMIT deaths in a row,
each within QUICK_DEATH_S of its start, `rlx` gives up, stops the rest and exits non-zero with a sentence. Any other
child (the web server) that dies stops the rest.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

_PR_SET_PDEATHSIG = 1
QUICK_DEATH_S = 30.0  # a child dying sooner than this after its start counts towards giving up
RESTART_LIMIT = 5  # quick deaths in a row before giving up
FIRST_WAIT_S = 0.5  # the wait before the first restart; doubled after each quick death, up to MAX_WAIT_S
MAX_WAIT_S = 8.0


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask the kernel to send `sig` to this process when its parent dies (Linux; elsewhere a no-op)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)
    except OSError:
        pass  # not Linux: Ctrl-C still reaches the whole process group


@dataclass
class Child:
    name: str
    launch: Callable[[], subprocess.Popen]
    restart: bool = False
    after_restart: Callable[[], None] | None = None  # e.g. a new, empty Redis: queue the start-up work again
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None  # set while waiting to start it again

    def run(self) -> None:
        self.process = self.launch()
        self.started_at = time.monotonic()
        self.restart_at = None


@dataclass
class Supervisor:
    env: dict
    children: list[Child] = field(default_factory=list)
    stopping: bool = False
    say: Callable[[str], None] = field(default=lambda line: print(f"rlx: {line}", file=sys.stderr, flush=True))

    def start(self, name: str, args: list[str], restart: bool = False) -> None:
        """Start a command as a child (in its own session: a terminal's Ctrl-C reaches only us, and we stop the
        children in order)."""
        def launch():
            return subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=die_with_parent)

        self.adopt(name, launch, restart=restart)

    def adopt(self, name: str, launch: Callable[[], subprocess.Popen], restart: bool = False,
              after_restart: Callable[[], None] | None = None) -> None:
        """Watch a child that `launch` starts (and starts again when it dies, if `restart`)."""
        child = Child(name, launch, restart=restart, after_restart=after_restart)
        child.run()
        self.children.append(child)

    def wait(self) -> int:
        """Block until a signal asks us to stop (0), or a child dies for good (1)."""
        received = []

        def on_signal(signum, frame):
            received.append(signum)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            while not received:
                for child in self.children:
                    if not self._tend(child):
                        return 1
                time.sleep(0.2)
            return 0
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self.stop()

    def _tend(self, child: Child) -> bool:
        """Restart `child` when it is due; False when it died and must not (or no longer may) be restarted."""
        now = time.monotonic()
        if child.restart_at is not None:
            return self._relaunch(child) if now >= child.restart_at else True
        code = child.process.poll()
        if code is None:
            return True
        how = _how_it_ended(code)
        if not child.restart:
            self.say(f"the {child.name} stopped ({how}); stopping the rest.")
            return False
        child.quick_deaths = child.quick_deaths + 1 if now - child.started_at < QUICK_DEATH_S else 0
        if child.quick_deaths >= RESTART_LIMIT:
            self.say(f"the {child.name} stopped ({how}), {child.quick_deaths} times in a row within "
                     f"{QUICK_DEATH_S:.0f} s of starting; giving up and stopping the rest.")
            return False
        wait = min(FIRST_WAIT_S * 2 ** child.quick_deaths, MAX_WAIT_S)
        self.say(f"the {child.name} stopped ({how}); starting it again in {wait:g} s.")
        child.restart_at = now + wait
        return True

    def _relaunch(self, child: Child) -> bool:
        try:
            child.run()
        except Exception as exc:  # it could not even start: one more quick death
            child.quick_deaths += 1
            if child.quick_deaths >= RESTART_LIMIT:
                self.say(f"the {child.name} could not be started again ({exc}); giving up and stopping the rest.")
                return False
            child.restart_at = time.monotonic() + min(FIRST_WAIT_S * 2 ** child.quick_deaths, MAX_WAIT_S)
            self.say(f"the {child.name} could not be started again ({exc}); trying again shortly.")
            return True
        self.say(f"the {child.name} is running again.")
        if child.after_restart is not None:
            try:
                child.after_restart()
            except Exception as exc:  # e.g. the new Redis refused the first job: the parts still run
                self.say(f"after starting the {child.name} again, a follow-up step failed ({exc}).")
        return True

    def recycle(self, names: set[str]) -> None:
        """Stop and start again the named children (the workers, after a new Redis lost their registrations)."""
        for child in self.children:
            if child.name in names and child.restart_at is None:
                _terminate(child.process)
                child.run()
                self.say(f"the {child.name} was restarted to join the new Redis.")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop children in reverse start order: the web first, Redis-dependent parts before Redis."""
        if self.stopping:
            return
        self.stopping = True
        for child in reversed(self.children):
            if child.process is not None:
                _terminate(child.process, timeout)


def _terminate(process: subprocess.Popen, timeout: float = 10.0) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def _how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
