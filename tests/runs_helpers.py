"""Helpers for the rollout tests: start a run as the web would, and wait for it (polling, with a deadline)."""

from __future__ import annotations

import time

from rlx.runs import record
from rlx.runs.launch import settle, start_run
from rlx.runs.record import RunRecord

SCIENCE = "rlx-examples/science-puzzles"
TERMINAL = "rlx-examples/terminal-basics"


def launch(app, env_id: str, ref: str, agent: str = "oracle", **fields) -> RunRecord:
    with app.app_context():
        return start_run(RunRecord(id=record.new_run_id(), env_id=env_id, ref=ref, agent=agent, **fields))


def wait_for(app, run_id: str, done=lambda r: not r.active, timeout: float = 120.0) -> RunRecord:
    deadline = time.monotonic() + timeout
    with app.app_context():
        store = app.extensions["rlx.store"]
        while True:
            run = settle(record.load(store, run_id))
            if done(run):
                return run
            assert time.monotonic() < deadline, f"run {run_id} still {run.status} after {timeout} s"
            time.sleep(0.1)
