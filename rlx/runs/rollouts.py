"""Lists of rollouts a visitor may see, read from the runs index: a task's (with its aliases'), an environment's,
and the visitor's own ("Your runs") with filters.

Every row passes `rlx.runs.access.may_see` before it is shown, whatever the SQL already narrowed, so a private
run reaches nobody but its owner and a hidden environment's runs reach nobody; the web hands in its
`dataset_access` (what the Hub says now of each run's dataset), asked once per environment listed.
`visitor` never leaves here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from rlx.runs.access import UNKNOWN, may_see
from rlx.runs.community import model_label
from rlx.runs.runs_db import reading
from rlx.runs.outcome import KINDS, LABELS, PENDING, of_row
from rlx.store import Store

MAX_ROWS = 100  # rows one list shows
MAX_TASKS = 11  # a task and at most ten aliases
SHOWN = ("id", "env_id", "ref", "agent", "model", "status", "scored", "reward", "created_at", "finished_at",
         "kind", "reason", "seconds", "cost", "cost_unknown", "batch", "purpose")
_READ = ", ".join((*SHOWN, "visitor", "visibility", "private_dataset"))


def _no_answer(_env_id: str) -> str:
    return UNKNOWN


def _visible(rows, viewer: str | None, hidden, dataset_access=_no_answer) -> list[dict]:
    answers: dict[str, str] = {}  # one question per environment, however many of its runs are listed

    def access(env_id: str) -> str:
        if env_id not in answers:
            answers[env_id] = dataset_access(env_id)
        return answers[env_id]

    out = []
    for row in rows:
        row = dict(row)
        # The predicate reads who owns a run, its visibility, its environment and whether its dataset is private:
        # those fields alone, without building a whole record per row (a tenth of a millisecond each).
        seen_as = SimpleNamespace(env_id=row["env_id"], visibility=row["visibility"], visitor=row["visitor"],
                                  private_dataset=bool(row["private_dataset"]))
        if not may_see(seen_as, viewer, hidden, access):
            continue
        ended = of_row(row) if row.get("kind") is None else None  # rows written before the kind column
        kind = ended.kind if ended else row["kind"]
        out.append({**{k: row[k] for k in SHOWN}, "kind": kind, "reason": ended.reason if ended else row["reason"],
                    "kind_label": LABELS.get(kind, kind), "label": model_label(row["agent"], row["model"]),
                    "mine": viewer is not None and row["visitor"] == viewer})
    return out


def lists_own_runs(rows: list[dict]) -> bool:
    """Whether a list holds the visitor's own runs (its page is then theirs alone to keep)."""
    return any(row["mine"] for row in rows)


def for_tasks(store: Store, tasks: list[tuple[str, str]], viewer: str | None, hidden,
              limit: int = MAX_ROWS, dataset_access=_no_answer) -> list[dict]:
    """The runs of a task and its aliases (the same task under other names), newest first."""
    tasks = list(dict.fromkeys(tasks))[:MAX_TASKS]
    found = []
    with reading(store) as db:
        for env_id, ref in tasks:  # one indexed range per task: (env_id, ref, created_at)
            found += db.execute(f"SELECT {_READ} FROM runs INDEXED BY runs_by_task WHERE env_id=? AND ref=? "
                                "AND (visibility='public' OR visitor=?) ORDER BY created_at DESC LIMIT ?",
                                (env_id, ref, viewer or "", limit)).fetchall()
    found.sort(key=lambda r: r["created_at"], reverse=True)
    return _visible(found, viewer, hidden, dataset_access)[:limit]


def for_env(store: Store, env_id: str, viewer: str | None, hidden, limit: int = MAX_ROWS,
            dataset_access=_no_answer) -> list[dict]:
    with reading(store) as db:
        rows = db.execute(f"SELECT {_READ} FROM runs INDEXED BY runs_by_env WHERE env_id=? "
                          "AND (visibility='public' OR visitor=?) ORDER BY created_at DESC LIMIT ?",
                          (env_id, viewer or "", limit)).fetchall()
    return _visible(rows, viewer, hidden, dataset_access)


@dataclass(frozen=True)
class MineFilter:
    """The "Your runs" page's filters, each checked against what exists before it touches SQL."""
    kind: str = ""
    env: str = ""
    agent: str = ""

    @classmethod
    def from_args(cls, args) -> "MineFilter":
        kind = args.get("outcome", "")
        if kind and kind not in (*KINDS, PENDING):
            raise ValueError(f"outcome must be one of {', '.join((*KINDS, PENDING))}.")
        env = args.get("env", "")[:200]
        agent = args.get("agent", "")[:60]
        return cls(kind, env, agent)

    def as_args(self) -> dict:
        return {k: v for k, v in (("outcome", self.kind), ("env", self.env), ("agent", self.agent)) if v}


def for_visitor(store: Store, viewer: str, hidden, chosen: MineFilter = MineFilter(),
                limit: int = MAX_ROWS, dataset_access=_no_answer) -> list[dict]:
    """The visitor's own runs, newest first, narrowed by the filters."""
    where, args = ["visitor=?"], [viewer]
    if chosen.env:
        where.append("env_id=?")
        args.append(chosen.env)
    if chosen.agent:
        where.append("agent=?")
        args.append(chosen.agent)
    if chosen.kind == PENDING:
        where.append("status IN ('queued', 'running')")
    elif chosen.kind:
        where.append("kind=?")
        args.append(chosen.kind)
    with reading(store) as db:
        rows = db.execute(f"SELECT {_READ} FROM runs INDEXED BY runs_by_visitor WHERE {' AND '.join(where)} "
                          "ORDER BY created_at DESC LIMIT ?", (*args, limit)).fetchall()
    return _visible(rows, viewer, hidden, dataset_access)


def visitor_choices(store: Store, viewer: str) -> dict:
    """What the visitor's filters may pick: the environments and agents of their own runs."""
    with reading(store) as db:
        envs = [r[0] for r in db.execute("SELECT DISTINCT env_id FROM runs WHERE visitor=? LIMIT 200", (viewer,))]
        agents = [r[0] for r in db.execute("SELECT DISTINCT agent FROM runs WHERE visitor=? LIMIT 50", (viewer,))]
    return {"envs": sorted(envs), "agents": sorted(agents), "kinds": [(k, LABELS[k]) for k in (*KINDS, PENDING)]}


MAX_SET = 2000  # rollouts one side of a compare reads


def for_batch(store: Store, batch_id: str, viewer: str | None, hidden,
              dataset_access=_no_answer) -> list[dict] | None:
    """A batch's runs as rows (None when there is no such batch, or none of its runs may be shown)."""
    with reading(store) as db:
        rows = db.execute(f"SELECT {_READ} FROM runs INDEXED BY runs_by_batch WHERE batch=? LIMIT ?",
                          (batch_id, MAX_SET)).fetchall()
    shown = _visible(rows, viewer, hidden, dataset_access)
    return shown or None


def for_agent(store: Store, env_id: str, agent: str, model: str | None, viewer: str | None, hidden,
              dataset_access=_no_answer) -> list[dict]:
    """Every run of one agent (and model) on one environment this visitor may see, newest first."""
    with reading(store) as db:
        rows = db.execute(f"SELECT {_READ} FROM runs INDEXED BY runs_by_env WHERE env_id=? AND agent=? "
                          "AND model IS ? AND (visibility='public' OR visitor=?) ORDER BY created_at DESC LIMIT ?",
                          (env_id, agent, model or None, viewer or "", MAX_SET)).fetchall()
    return _visible(rows, viewer, hidden, dataset_access)
