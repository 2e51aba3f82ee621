"""A job's progress, kept on the job's meta in Redis so any web host can show it.

The worker calls `Progress.update` as often as it likes; writes are throttled so a tight loop does not flood
Redis, and a step change is always written at once.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from rq.job import Job, get_current_job


@dataclass
class Step:
    name: str
    done: int = 0
    total: int | None = None
    state: str = "waiting"  # waiting, running, done, failed


@dataclass
class Progress:
    steps: list[Step]
    message: str = ""
    _job: Job | None = field(default=None, repr=False)
    _written: float = field(default=0.0, repr=False)
    min_interval: float = field(default=0.25, repr=False)

    @classmethod
    def for_current_job(cls, step_names: list[str]) -> "Progress":
        progress = cls(steps=[Step(name) for name in step_names], _job=get_current_job())
        if progress.steps:  # the job is running: so is its first step, even before it reports a count
            progress.steps[0].state = "running"
        progress._write(force=True)
        return progress

    def start(self, name: str, total: int | None = None, message: str = "") -> None:
        for step in self.steps:
            if step.state == "running" and step.name != name:
                step.state = "done"
        step = self._step(name)
        step.state, step.total, step.done = "running", total, 0
        self.message = message
        self._write(force=True)

    def update(self, name: str, done: int, total: int | None = None, message: str | None = None) -> None:
        step = self._step(name)
        step.done = done
        if total is not None:
            step.total = total
        if message is not None:
            self.message = message
        self._write()

    def finish(self, name: str, message: str = "") -> None:
        step = self._step(name)
        step.state = "done"
        if step.total is not None:
            step.done = step.total
        self.message = message
        self._write(force=True)

    def fail(self, message: str) -> None:
        for step in self.steps:
            if step.state == "running":
                step.state = "failed"
        self.message = message
        self._write(force=True)

    def on_change(self, force: bool) -> None:
        """Hook for progress that is not a job's (the `rlx index` progress bar)."""

    def as_dict(self) -> dict:
        return {"steps": [asdict(s) for s in self.steps], "message": self.message}

    def _step(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    def _write(self, force: bool = False) -> None:
        if self._job is None:
            self.on_change(force)
            return
        now = time.monotonic()
        if not force and now - self._written < self.min_interval:
            return
        self._written = now
        self._job.meta["progress"] = self.as_dict()
        self._job.save_meta()


def read_progress(job: Job) -> dict | None:
    """The progress a worker last wrote on `job`, or None before the first write."""
    job.refresh()
    return job.meta.get("progress")


class NullProgress(Progress):
    """Progress for work run outside a job (tests, scripts): every call is accepted, nothing is written."""

    def __init__(self):
        super().__init__(steps=[])

    def start(self, name, total=None, message=""):
        pass

    def update(self, name, done, total=None, message=None):
        pass

    def finish(self, name, message=""):
        pass

    def fail(self, message):
        pass
