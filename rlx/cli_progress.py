"""A job's progress drawn as one line in a terminal: the step, a bar, the counts."""

from __future__ import annotations

import sys
import time

from rlx.queue.progress import Progress, Step

BAR_WIDTH = 30


class TerminalProgress(Progress):
    def __init__(self, step_names: list[str], stream=None):
        super().__init__(steps=[Step(name) for name in step_names])
        self.stream = stream or sys.stderr
        self._drawn = 0.0
        self._drawn_step: str | None = None

    def on_change(self, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._drawn < 0.1:
            return
        self._drawn = now
        step = next((s for s in self.steps if s.state == "running"), None)
        if step is None:
            return
        if step.total:
            filled = int(BAR_WIDTH * min(step.done, step.total) / step.total)
            bar = "█" * filled + "·" * (BAR_WIDTH - filled)
            line = f"{step.name:<9} {bar} {step.done:,}/{step.total:,}"
        else:
            line = f"{step.name:<9} {self.message}"
        if self.stream.isatty():  # redraw one line; a new step starts a new line
            self.stream.write(("\n" if force and self._drawn_step not in (None, step.name) else "\r") + f"{line:<72}")
        elif force:  # a log file: one line per step change
            self.stream.write(line + "\n")
        self._drawn_step = step.name
        self.stream.flush()

    def close(self) -> None:
        if self.stream.isatty() and self._drawn_step is not None:
            self.stream.write("\n")
            self.stream.flush()
