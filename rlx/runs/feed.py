"""What a running trial tells the run page: Harbor's phase hooks, and terminus-2's steps as they happen.

terminus-2 rewrites agent/trajectory.json on the host after every step; the feed re-reads it a few times a
second and publishes each new step (its message, the keystrokes it sent, what it saw). An installed agent writes
its own log inside the sandbox, and Harbor converts it to ATIF only once it ends: such an agent's class offers
`live_steps()` (rlx/runs/installed_agents.py), which reads its log from the sandbox meanwhile. The oracle's commands and
output are the reference solution, so nothing of its agent phase is published.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rlx.runs import events
from rlx.runs.view import trajectory_steps

POLL_SEC = 0.3
PHASE_EVENTS = ("ENVIRONMENT_START", "AGENT_START", "AGENT_END", "VERIFICATION_START")


class TrialFeed:
    def __init__(self, redis, run_id: str, trial_dir: Path):
        self.redis, self.run_id, self.trial_dir = redis, run_id, trial_dir
        self.published_steps = 0
        self._live = None
        self._task: asyncio.Task | None = None
        self._steps: list = []  # a multi-step trial's StepResults, as Harbor's hooks show them
        self._results_published: set[int] = set()

    def attach(self, trial) -> None:
        from harbor.trial.hooks import TrialEvent

        self._live = getattr(getattr(trial, "agent", None), "live_steps", None)

        for name in PHASE_EVENTS:
            trial.add_hook(getattr(TrialEvent, name), self._on_phase)

    async def _on_phase(self, event) -> None:
        name = getattr(event, "event", None)
        phase = getattr(name, "value", str(name))
        steps = getattr(getattr(event, "result", None), "step_results", None)
        if not steps:  # a single-step task: the phases alone
            events.publish(self.redis, self.run_id, "phase", phase=phase)
            return
        # a multi-step task: Harbor appends each step's result before the step starts, so the last is this one's
        self._steps = steps
        if phase == "agent-start" and len(steps) > 1:
            self._publish_step_result(len(steps) - 1, steps[-2])
        events.publish(self.redis, self.run_id, "phase", phase=phase, step=len(steps),
                       step_name=str(steps[-1].step_name)[:80])

    def _publish_step_result(self, n: int, step) -> None:
        """Step n's verdict, once: its reward(s), or that it was not scored."""
        if n in self._results_published:
            return
        self._results_published.add(n)
        rewards = getattr(getattr(step, "verifier_result", None), "rewards", None) or {}
        shown = {str(k)[:40]: float(v) for k, v in list(rewards.items())[:8] if isinstance(v, (int, float))}
        events.publish(self.redis, self.run_id, "step-result", step=n, step_name=str(step.step_name)[:80],
                       rewards=shown, failed=getattr(step, "exception_info", None) is not None)

    def start(self) -> None:
        self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.publish_new_steps()  # the last step, written just before the agent ended
        if self._steps:  # a multi-step trial's last step has its verdict now
            self._publish_step_result(len(self._steps), self._steps[-1])

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(POLL_SEC)
            self.publish_new_steps()

    def publish_new_steps(self) -> None:
        steps = trajectory_steps(self.trial_dir) or (self._live() if self._live else [])
        for step in steps[self.published_steps:]:
            events.publish(self.redis, self.run_id, "step", **step)
        self.published_steps = max(self.published_steps, len(steps))
