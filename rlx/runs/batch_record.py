"""A batch's record: the tasks it covers, the runs it has started so far, its state. One JSON file in the store
(runs/batches/<id>.json), written whole and atomically; what moves a batch on is rlx/runs/batch.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from rlx.jobs.queues import ROLLOUTS
from rlx.runs import record
from rlx.runs.record import RunRecord
from rlx.store import Store, read_json, write_json

RUNNING, FINISHED, STOPPED = "running", "finished", "stopped"


@dataclass
class BatchRecord:
    id: str
    env_id: str
    agent: str
    refs: list[str]
    cap: int
    model: str | None = None  # terminus-2's model name; where it is served and its key stay in Redis
    revision: str | None = None
    visitor: str | None = None
    private_dataset: bool = False  # its runs read the task with the visitor's token (rlx/runs/read_token.py)
    cap_holder: str | None = None  # whose cap of running batches it counts against (as a run's: never a cookie)
    visibility: str = "private"
    filters: dict = field(default_factory=dict)  # the task filters that chose `refs` (q, f), to say so on the page
    run_ids: list[str] = field(default_factory=list)  # runs started, in the order of `refs`
    status: str = RUNNING
    created_at: str = field(default_factory=record.now_iso)
    finished_at: str | None = None
    agents: list[str] | None = None  # one agent per entry of `refs`, when they differ (a health check's oracle, nop)
    queue: str = ROLLOUTS  # "bulk" for runs nobody is waiting for
    purpose: str | None = None  # "health": an environment's health check (rlx/runs/health.py)
    judge: str | None = None  # the judge model the visitor picked for the model-graded tasks among `refs`
    judged: list[str] = field(default_factory=list)  # those tasks: each of their runs is graded by `judge`

    def agent_at(self, i: int) -> str:
        return self.agents[i] if self.agents else self.agent

    def judge_at(self, i: int) -> str | None:
        return self.judge if self.refs[i] in self.judged else None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "BatchRecord":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def batch_path(store: Store, batch_id: str) -> Path:
    return store.runs_dir / "batches" / f"{batch_id}.json"


def save(store: Store, batch: BatchRecord) -> None:
    write_json(batch_path(store, batch.id), batch.to_json())


def load(store: Store, batch_id: str) -> BatchRecord | None:
    if not record.valid_run_id(batch_id):
        return None
    data = read_json(batch_path(store, batch_id))
    return BatchRecord.from_json(data) if isinstance(data, dict) else None


def runs_of(store: Store, batch: BatchRecord) -> list[RunRecord | None]:
    return [record.load(store, run_id) for run_id in batch.run_ids]
