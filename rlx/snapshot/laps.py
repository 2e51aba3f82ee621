"""Where a build's time goes: wall and CPU seconds per phase."""

from __future__ import annotations

import time


class Laps:
    """Wall and CPU seconds per phase of a build; a phase met several times (once per dataset) adds up. The CPU is the
    build's own thread's: the task tables' thread (task_tables.py) reports its own."""

    def __init__(self):
        self._walls: dict[str, float] = {}
        self._cpus: dict[str, float] = {}
        self.restart()

    @property
    def wall(self) -> dict[str, float]:
        return {name: round(seconds, 3) for name, seconds in self._walls.items()}

    @property
    def cpu(self) -> dict[str, float]:
        return {name: round(seconds, 3) for name, seconds in self._cpus.items()}

    def restart(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.thread_time()

    def lap(self, name: str) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        self._walls[name] = self._walls.get(name, 0.0) + wall - self._wall
        self._cpus[name] = self._cpus.get(name, 0.0) + cpu - self._cpu
        self._wall, self._cpu = wall, cpu
