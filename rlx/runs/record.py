"""The run record: one JSON file per rollout in the store (runs/<id>/run.json), written whole, atomically.

A record says what was run (task and its revision, agent, model, sandbox), who may see it, where it stands
(status), and how it ended: rewards when the verifier wrote some, otherwise `scored` is False and `outcome` says
why. A run that was not scored has no reward at all, never 0. Tokens never enter a record.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

from rlx.store import Store, read_json, write_json
from rlx.store.atomic_files import write_atomic

QUEUED, RUNNING, FINISHED, FAILED, STOPPED = "queued", "running", "finished", "failed", "stopped"
ACTIVE = (QUEUED, RUNNING)
DONE = (FINISHED, FAILED, STOPPED)
# A public run an admin took off community (rlx/admin/rollouts.py): like a private one, only its owner sees it.
WITHDRAWN = "withdrawn"
_ID = re.compile(r"^[a-z0-9]{12}\Z")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))


def valid_run_id(run_id: str) -> bool:
    return bool(_ID.match(run_id or ""))


@dataclass
class RunRecord:
    id: str
    env_id: str  # "org/name"
    ref: str  # the task's ref inside the environment
    agent: str  # a name from rlx/runs/agents.py: oracle, nop, terminus-2, mini-swe-agent, codex
    sandbox: str = "local"
    model: str | None = None  # the model's name as the visitor gave it; never its key or endpoint secret
    revision: str | None = None  # the environment's commit the task was read at
    visitor: str | None = None  # an opaque owner id (session or account), never a token
    visibility: str = "private"
    status: str = QUEUED
    created_at: str = field(default_factory=now_iso)
    started_at: str | None = None
    finished_at: str | None = None
    scored: bool = False
    rewards: dict[str, float] | None = None  # None unless the verifier wrote a reward
    outcome: str | None = None  # one sentence: how it ended, or why it failed / was not scored
    error_type: str | None = None
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase
    usage: dict = field(default_factory=dict)  # tokens in/out, cost, when the agent reports them
    provenance: dict = field(default_factory=dict)  # task digest, package versions, sandbox details
    job_id: str | None = None
    job_timeout: int | None = None
    batch: str | None = None  # the batch evaluation that started it (rlx/runs/batch.py)
    # The dataset was private or gated when the run started: its task is read with the visitor's token, from their
    # shelf (rlx/runs/read_token.py), and the run is theirs alone while that token opens the dataset.
    private_dataset: bool = False
    # Whose per-person cap of active runs it counts against (rlx/auth/visitor.py cap_holder_id: the account, else
    # the address, hashed). A cookie would not do: anyone can fetch a new one. Never shown.
    cap_holder: str | None = None
    # "health": one of an environment's health check's runs (rlx/runs/health.py), public and ownerless, shown on
    # the environment's Health section and never counted on a leaderboard or listed on Community.
    purpose: str | None = None
    # A model-graded task's judge (a model id from the admin's pool, rlx/runs/judges.py) and how many calls its
    # verifier made to it through the run's judge relay; the key it was called with is never here.
    judge: str | None = None
    judge_calls: int = 0

    @property
    def reward(self) -> float | None:
        """The headline reward: `reward` when named so, else the mean of the named ones; None when not scored."""
        if not self.scored or not self.rewards:
            return None
        if "reward" in self.rewards:
            return self.rewards["reward"]
        return sum(self.rewards.values()) / len(self.rewards)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "RunRecord":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def run_dir(store: Store, run_id: str) -> Path:
    return store.runs_dir / run_id


def trial_dir(store: Store, run_id: str) -> Path:
    """Harbor's trial folder (config.json, result.json, agent/, verifier/) for this run."""
    return run_dir(store, run_id) / "trial"


def save(store: Store, record: RunRecord) -> None:
    write_json(run_dir(store, record.id) / "run.json", record.to_json())


RESERVE_BYTES = 1024 * 1024  # what a run's last record, its index row and its events need, with room to spare


def reserve_space(store: Store, run_id: str) -> None:
    """Hold a little of the store's disk for this run's last word (written when it ends, maybe onto a disk that
    filled up meanwhile): real blocks, written when the run is created, given back by `release_space`."""
    write_atomic(run_dir(store, run_id) / RESERVE_NAME, bytes(RESERVE_BYTES), durable=False)


def release_space(store: Store, run_id: str) -> None:
    (run_dir(store, run_id) / RESERVE_NAME).unlink(missing_ok=True)


RESERVE_NAME = ".reserved-space"


def load(store: Store, run_id: str) -> RunRecord | None:
    if not valid_run_id(run_id):
        return None
    data = read_json(run_dir(store, run_id) / "run.json")
    return RunRecord.from_json(data) if isinstance(data, dict) else None
