"""A model-graded run's judge, from the worker's side: its relay (rlx/runs/judge_relay.py) started with the run and
linked into the sandbox, opened for each verifier phase (its forwarder started inside the sandbox just then), shut
for each agent phase, its calls counted into the record, and stopped with the run (the key goes with it).

The forwarder is started by the worker, as the sandbox's root, from the relay's read-only folder, only once the
agent has finished: the agent never finds a judge to call, nor a forwarder to replace.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from rlx.runs.egress import Egress
from rlx.runs.judge_relay import FORWARD_PORT, JUDGE_URL, SANDBOX_DIR, JudgeRelay
from rlx.runs.judges import take_judge_endpoint
from rlx.runs.model_relay import SOCKET_NAME

FORWARDER = Path(__file__).with_name("sandbox_judge_forward.py")
FORWARDER_NAME = "forward.py"
START_TIMEOUT = 15


class JudgeNotReached(RuntimeError):
    """The verifier's judge could not be put in reach inside the sandbox; one sentence saying why."""


@dataclass
class RunJudge:
    relay: JudgeRelay
    forwarder_pid: int | None = None

    @property
    def read_only(self) -> list[list[str]]:
        """[host folder, path inside] for the sandbox: the relay's socket and the forwarder's source."""
        return [[str(self.relay.folder), SANDBOX_DIR]]

    @property
    def calls(self) -> int:
        return self.relay.calls

    def attach(self, trial) -> None:
        from harbor.trial.hooks import TrialEvent

        trial.add_hook(TrialEvent.VERIFICATION_START, lambda _event: self.open(trial.agent_environment))
        trial.add_hook(TrialEvent.AGENT_START, lambda _event: self.shut(trial.agent_environment))

    async def open(self, environment) -> None:
        await self.shut(environment)  # a multi-step task's earlier verifier left one running
        command = (f"/usr/bin/python3 {SANDBOX_DIR}/{FORWARDER_NAME} {FORWARD_PORT} "
                   f"{shlex.quote(f'{SANDBOX_DIR}/{SOCKET_NAME}')} </dev/null 2>&1")
        result = await environment.exec(command, user="root", timeout_sec=START_TIMEOUT)
        pid = (result.stdout or "").strip()
        if result.return_code != 0 or not pid.isdigit():
            raise JudgeNotReached("The judge could not be put in reach of the verifier: "
                                  f"{(result.stdout or result.stderr or 'its forwarder did not start').strip()[:200]}.")
        self.forwarder_pid = int(pid)
        self.relay.open = True

    async def shut(self, environment) -> None:
        self.relay.open = False
        pid, self.forwarder_pid = self.forwarder_pid, None
        if pid is not None:
            await environment.exec(f"kill {pid} 2>/dev/null || true", user="root", timeout_sec=START_TIMEOUT)

    def stop(self) -> None:
        self.relay.stop()


def judge_for(run, redis, config, egress: Egress) -> RunJudge | None:
    """The run's judge, its relay serving (still shut); None for a run without one."""
    if not run.judge:
        return None
    endpoint, key = take_judge_endpoint(redis, run.id, config)
    relay = JudgeRelay(endpoint, key, egress, run.judge).start()
    shutil.copyfile(FORWARDER, relay.folder / FORWARDER_NAME)
    return RunJudge(relay)


def judge_variables(run) -> dict[str, str]:
    """What a model-graded task's task.toml may name (rlx/runs/task_vars.py); nothing secret."""
    return {"RLX_JUDGE_URL": JUDGE_URL, "RLX_JUDGE_MODEL": run.judge} if run.judge else {}
