"""A batch's results: one row per task, the reward histogram, and the exports (CSV, JSONL, parquet).

A run that was not scored has no reward, never 0: an empty CSV cell, null in JSONL and parquet, and it stays out
of the histogram (which says how many it left out). Answers never appear: only the run's reward and outcome.
A run an admin took off community (withdrawn) is left out for everyone but the batch's owner, as community does.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime

from rlx.runs.batch import BatchRecord
from rlx.runs.outcome import KINDS, LABELS, PENDING, SOLVED, of_run
from rlx.runs.record import WITHDRAWN, RunRecord
from rlx.runs.usage import UNKNOWN, cost_of, cost_per_solved

WAITING = "waiting"
NOT_STARTED = "not started"  # a stopped batch's tasks it never got to
COLUMNS = ("task", "run_id", "status", "scored", "reward", "seconds", "outcome", "result", "input_tokens",
           "output_tokens", "judge_calls", "cost_usd", "cost_unknown")
BINS = 10


@dataclass
class ResultRow:
    task: str
    run_id: str | None
    status: str
    scored: bool
    reward: float | None
    seconds: float | None
    outcome: str | None
    result: str | None = None  # solved, failed, infrastructure, unobserved, stopped (rlx/runs/outcome.py)
    cost: float | str | None = None  # dollars (the judge's included), "unknown", or None (no model used, not ended)
    agent: str | None = None  # shown where a batch's runs use different agents (a health check's oracle and nop)
    input_tokens: int | None = None  # the agent's model's, where it reported them
    output_tokens: int | None = None
    judge_calls: int = 0

    @property
    def cost_usd(self) -> float | None:
        return self.cost if isinstance(self.cost, float) else None

    @property
    def cost_unknown(self) -> bool:
        return self.cost == UNKNOWN

    def as_dict(self) -> dict:
        return {c: getattr(self, c) for c in COLUMNS}


def result_rows(batch: BatchRecord, runs: list[RunRecord | None], hide_withdrawn: bool = True) -> list[ResultRow]:
    rows = []
    for i, ref in enumerate(batch.refs):
        run = runs[i] if i < len(runs) else None
        if run is not None and run.visibility == WITHDRAWN and hide_withdrawn:
            continue
        if run is None and batch.status == "stopped":
            rows.append(ResultRow(ref, None, NOT_STARTED, False, None, None, "The batch was stopped before it.",
                                  agent=batch.agent_at(i)))
        elif run is None:
            rows.append(ResultRow(ref, None, WAITING, False, None, None, None, agent=batch.agent_at(i)))
        else:
            ended, usage = of_run(run), run.usage or {}
            rows.append(ResultRow(ref, run.id, run.status, run.scored, run.reward, _seconds(run), run.outcome,
                                  None if ended.kind == PENDING else ended.kind, cost_of(usage), run.agent,
                                  usage.get("input_tokens"), usage.get("output_tokens"), run.judge_calls))
    return rows


def withdrawn_count(runs: list[RunRecord | None]) -> int:
    return sum(1 for run in runs if run is not None and run.visibility == WITHDRAWN)


def _seconds(run: RunRecord) -> float | None:
    if not run.started_at or not run.finished_at:
        return None
    start, end = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (run.started_at, run.finished_at))
    return round((end - start).total_seconds(), 2)


def counts(rows: list[ResultRow]) -> dict[str, int]:
    out = {WAITING: 0, "queued": 0, "running": 0, "finished": 0, "failed": 0, "stopped": 0}
    for row in rows:
        out[row.status] = out.get(row.status, 0) + 1
    out["scored"] = sum(1 for r in rows if r.scored)
    out["not_scored"] = sum(1 for r in rows if r.status in ("finished", "failed", "stopped") and not r.scored)
    out["done"] = out["finished"] + out["failed"] + out["stopped"]
    out["total"] = len(rows)
    return out


def solved_cost(rows: list[ResultRow]) -> float | str | None:
    """What each solved task cost, by the one rule (rlx/runs/usage.py cost_per_solved): the runs shown so far."""
    return cost_per_solved((r.cost for r in rows), sum(1 for r in rows if r.result == SOLVED))


def results(rows: list[ResultRow]) -> list[tuple[str, str, int]]:
    """(kind, label, how many) for each ended outcome, in the vocabulary's order."""
    return [(kind, LABELS[kind], sum(1 for r in rows if r.result == kind)) for kind in KINDS]


def histogram(rows: list[ResultRow], width: int = 400, height: int = 120) -> dict:
    """Bars for an SVG: the scored rewards in BINS equal bins over [min(0, lowest), max(1, highest)]."""
    rewards = [r.reward for r in rows if r.scored and r.reward is not None]
    low = min([0.0, *rewards])
    high = max([1.0, *rewards])
    span = (high - low) or 1.0
    tally = [0] * BINS
    for value in rewards:
        tally[min(BINS - 1, int((value - low) / span * BINS))] += 1
    tallest = max(tally) or 1
    bar = width / BINS
    y_ticks = sorted({0, tallest, tallest // 2} if tallest >= 4 else set(range(tallest + 1)))
    bars = [{"x": round(i * bar, 1), "w": round(bar - 2, 1), "h": round(n / tallest * height, 1),
             "y": round(height - n / tallest * height, 1), "n": n,
             "low": round(low + i * span / BINS, 3), "high": round(low + (i + 1) * span / BINS, 3)}
            for i, n in enumerate(tally)]
    edges = [(round(i * bar, 1), f"{low + i * span / BINS:g}") for i in range(0, BINS + 1, 2)]
    return {"bars": bars, "width": width, "height": height, "low": low, "high": high, "n": len(rewards),
            "x_ticks": edges, "y_ticks": [(round(height - n / tallest * height, 1), n) for n in y_ticks],
            "left_out": sum(1 for r in rows if r.status in ("finished", "failed", "stopped") and not r.scored)}


def to_csv(rows: list[ResultRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(["" if v is None else v for v in (row.as_dict()[c] for c in COLUMNS)])
    return out.getvalue()


def to_jsonl(rows: list[ResultRow]) -> str:
    return "".join(json.dumps(row.as_dict(), ensure_ascii=False) + "\n" for row in rows)


def to_parquet(rows: list[ResultRow]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("task", pa.string()), ("run_id", pa.string()), ("status", pa.string()),
                        ("scored", pa.bool_()), ("reward", pa.float64()), ("seconds", pa.float64()),
                        ("outcome", pa.string()), ("result", pa.string()), ("input_tokens", pa.int64()),
                        ("output_tokens", pa.int64()), ("judge_calls", pa.int64()), ("cost_usd", pa.float64()),
                        ("cost_unknown", pa.bool_())])
    table = pa.Table.from_pylist([row.as_dict() for row in rows], schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
