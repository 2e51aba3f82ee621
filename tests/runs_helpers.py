"""Helpers for the rollout tests: start a run as the web would, and wait for it (polling, with a deadline)."""

from __future__ import annotations

from pathlib import Path

from rlx.runs import record
from rlx.jobs.settle import settle
from rlx.runs.launch import start_run
from rlx.runs.record import RunRecord
from tests.processes import wait_or_fail

SCIENCE = "rlx-examples/science-puzzles"
TERMINAL = "rlx-examples/terminal-basics"


def launch(app, env_id: str, ref: str, agent: str = "oracle", **fields) -> RunRecord:
    with app.app_context():
        return start_run(RunRecord(id=record.new_run_id(), env_id=env_id, ref=ref, agent=agent, **fields))


def wait_for(app, run_id: str, done=lambda r: not r.active, timeout: float = 120.0) -> RunRecord:
    with app.app_context():
        store = app.extensions["rlx.store"]

        seen: list[RunRecord] = []

        def ended() -> RunRecord | None:
            run = settle(record.load(store, run_id))
            seen[:] = [run]
            return run if done(run) else None

        try:
            return wait_or_fail(ended, f"run {run_id} to end within {timeout} s", timeout, every=0.1)
        except AssertionError as failed:  # say where it stood, and what its trial logged last, for a rare failure
            raise AssertionError(f"{failed}; last seen {told(app, seen[0]) if seen else None}") from None


def told(app, run: RunRecord) -> str:
    """A run's status, how it ended and the end of its trial log: what a failed assertion on it should show."""
    with app.app_context():
        log = record.trial_dir(app.extensions["rlx.store"], run.id) / "trial.log"
        tail = log.read_text(errors="replace")[-1500:] if log.is_file() else "(no trial log)"
    return f"{run.id} {run.status!r}: {run.outcome!r}, rewards {run.rewards!r}\ntrial log:\n{tail}"


PLAIN_IMAGE = "FROM debian:bookworm-slim\nWORKDIR /app\n"
WROTE_DONE = '[ "$(cat /app/out.txt 2>/dev/null)" = done ] && echo 1 || echo 0'  # a verifier of the usual task


def write_small_task(task: Path, solution: str, verifier: str, dockerfile: str = PLAIN_IMAGE) -> None:
    """A Harbor task of a few lines, no network: its solution and verifier are shell lines, the verifier's output
    is the reward (what health checks and compares are made of)."""
    for part in ("environment", "solution", "tests"):
        (task / part).mkdir(parents=True)
    (task / "task.toml").write_text('schema_version = "1.1"\n[verifier]\ntimeout_sec = 20.0\n'
                                    '[agent]\ntimeout_sec = 60.0\n[environment]\nnetwork_mode = "no-network"\n')
    (task / "instruction.md").write_text("Write done to /app/out.txt.\n")
    (task / "environment" / "Dockerfile").write_text(dockerfile)
    (task / "solution" / "solve.sh").write_text(f"#!/usr/bin/env bash\n{solution}\n")
    (task / "tests" / "test.sh").write_text(
        f"#!/usr/bin/env bash\nmkdir -p /logs/verifier\n({verifier}) > /logs/verifier/reward.txt\n")
    for script in (task / "solution" / "solve.sh", task / "tests" / "test.sh"):
        script.chmod(0o755)
