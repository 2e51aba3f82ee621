"""Compare up to four rollouts of one task side by side: what each did at step 1, step 2, … and how each ended.

Reading the ids and checking who may see each run is the web's job; this module lines the runs' steps up.
A run's steps are its `step` events (archived in the store once it ends, live in Redis before).
"""

from __future__ import annotations

from rlx.runs import events, record
from rlx.runs.community import model_label
from rlx.runs.record import RunRecord
from rlx.runs.view import provenance_rows, reward_text, STATUS_LABELS

MAX_RUNS = 4


class CompareError(ValueError):
    """The visitor's list of runs cannot be compared; the message says why."""


def parse_ids(values: list[str]) -> list[str]:
    """`runs=a,b,c` (or `runs=a&runs=b`): distinct, well-formed run ids, at most four, order kept. Reading stops
    at the fifth distinct id."""
    ids: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part and part not in ids:
                ids.append(part)
            if len(ids) > MAX_RUNS:
                raise CompareError(f"At most {MAX_RUNS} runs can be compared at once; more were given.")
    if not ids:
        raise CompareError("Give the runs to compare as runs=<id>,<id> (up to four).")
    bad = [i for i in ids if not record.valid_run_id(i)]
    if bad:
        raise CompareError(f"{bad[0][:40]!r} is not a run id (twelve lowercase letters and digits).")
    return ids


def check_same_task(runs: list[RunRecord], aliases: list[tuple[str, str]]) -> None:
    """Every run is on the first run's task or on one of its aliases."""
    first = (runs[0].env_id, runs[0].ref)
    allowed = {first, *aliases}
    for run in runs[1:]:
        if (run.env_id, run.ref) not in allowed:
            raise CompareError(f"Run {run.id} is on {run.env_id} · {run.ref}, not on {first[0]} · {first[1]}: "
                               "only rollouts of the same task can be compared.")


def steps_of(store, redis, run: RunRecord) -> list[dict]:
    live = [e for _id, e in events.read(redis, run.id, count=events.MAX_EVENTS)]
    return [e for e in (live or events.archived(store, run.id)) if e.get("kind") == "step"]


def compare_view(runs: list[RunRecord], steps: list[list[dict]], verifier: list[tuple] | None = None) -> dict:
    """Columns (one per run) and rows (one per step number, a cell per run, empty where a run had stopped);
    `verifier` (output, lines withheld) per run, from rlx/runs/view.py `verifier_output`."""
    columns = [{"id": r.id, "env_id": r.env_id, "ref": r.ref, "agent": r.agent, "label": model_label(r.agent, r.model),
                "status_label": STATUS_LABELS.get(r.status, r.status), "reward_text": reward_text(r),
                "outcome": r.outcome, "steps": len(s), "total": r.timings.get("total"),
                "usage": r.usage, "provenance": provenance_rows(r),
                "verifier": v[0], "verifier_masked": v[1]}
               for r, s, v in zip(runs, steps, verifier or [(None, 0)] * len(runs))]
    depth = max((len(s) for s in steps), default=0)
    rows = [{"n": i + 1, "cells": [s[i] if i < len(s) else None for s in steps]} for i in range(depth)]
    return {"columns": columns, "rows": rows}
