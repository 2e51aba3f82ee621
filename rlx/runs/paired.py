"""Two sets of rollouts on the same tasks, compared task by task and tested as pairs.

Why paired: two agents on the same tasks are not two independent samples; a task hard for one is usually hard
for the other. So the solve rates' difference is judged on the tasks where they disagree (the flips), with
McNemar's exact test: under "no difference" each flip goes either way with probability 1/2. Its 95% interval is
the exact (Clopper-Pearson) interval for the share of flips that went A's way, turned into a difference of solve
rates; it excludes 0 exactly when the exact test rejects at 5%, so the interval and the p-value never disagree.

A task's result in a set counts only rollouts that say something about the agent (solved or failed, see
rlx/runs/outcome.py): an infrastructure error or an unobserved run is left out. With repeats, a task is solved
in a set when more than half of its counted runs solved it, and it is listed among the tasks whose repeats
disagree. A task with no counted run in either set is not a pair and is listed apart.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field

from rlx.runs.outcome import FAILED, SOLVED
from rlx.runs.usage import cost_of_row, cost_per_solved

BOTH, ONLY_A, ONLY_B, NEITHER = "both", "only A", "only B", "neither"
CONFIDENCE = 0.95


@dataclass
class TaskResult:
    """One set's rollouts of one task."""
    solved: int = 0
    failed: int = 0
    left_out: int = 0  # infrastructure errors, unobserved, stopped
    costs: list = field(default_factory=list)  # per run: dollars, "unknown", or None (no model used)
    run_ids: list[str] = field(default_factory=list)

    @property
    def counted(self) -> int:
        return self.solved + self.failed

    @property
    def is_solved(self) -> bool:
        return self.solved * 2 > self.counted

    @property
    def repeats_disagree(self) -> bool:
        return self.solved > 0 and self.failed > 0


def gather(rows: list[dict]) -> dict[str, TaskResult]:
    """Per task ref, from rollout rows (`ref`, `kind`, `cost`, `id`), as rlx.runs.rollouts gives them."""
    out: dict[str, TaskResult] = {}
    for row in rows:
        result = out.setdefault(row["ref"], TaskResult())
        result.run_ids.append(row["id"])
        if row["kind"] == SOLVED:
            result.solved += 1
        elif row["kind"] == FAILED:
            result.failed += 1
        else:
            result.left_out += 1
        result.costs.append(cost_of_row(row))
    return out


def compare_sets(a: dict[str, TaskResult], b: dict[str, TaskResult]) -> dict:
    """Per task, the categories, the paired test and what goes beside it."""
    tasks, unpaired = [], []
    for ref in sorted(set(a) | set(b)):
        ra, rb = a.get(ref), b.get(ref)
        if ra is None or rb is None or not ra.counted or not rb.counted:
            unpaired.append({"task": ref, "a": _cell(ra), "b": _cell(rb)})
            continue
        category = {(True, True): BOTH, (True, False): ONLY_A, (False, True): ONLY_B,
                    (False, False): NEITHER}[(ra.is_solved, rb.is_solved)]
        tasks.append({"task": ref, "category": category, "a": _cell(ra), "b": _cell(rb)})
    n = len(tasks)
    tally = {c: sum(1 for t in tasks if t["category"] == c) for c in (BOTH, ONLY_A, ONLY_B, NEITHER)}
    flips_a, flips_b = tally[ONLY_A], tally[ONLY_B]
    solved_a, solved_b = tally[BOTH] + flips_a, tally[BOTH] + flips_b
    union = tally[BOTH] + flips_a + flips_b
    return {
        "tasks": tasks, "unpaired": unpaired, "n": n, "tally": tally,
        "flips": [t for t in tasks if t["category"] in (ONLY_A, ONLY_B)],
        "rate_a": solved_a / n if n else None, "rate_b": solved_b / n if n else None,
        "difference": (solved_a - solved_b) / n if n else None,
        "interval": difference_interval(flips_a, flips_b, n),
        "p_value": mcnemar_exact(flips_a, flips_b) if n else None,
        "overlap": tally[BOTH] / union if union else None,
        "cost_per_solved_a": _cost_per_solved(a, solved_a), "cost_per_solved_b": _cost_per_solved(b, solved_b),
        "disagree_a": sorted(ref for ref, r in a.items() if r.repeats_disagree),
        "disagree_b": sorted(ref for ref, r in b.items() if r.repeats_disagree),
        "test": "McNemar's exact test on the flips; 95% exact (Clopper-Pearson) interval on the difference",
    }


def _cell(result: TaskResult | None) -> dict | None:
    if result is None:
        return None
    return {"solved": result.solved, "failed": result.failed, "left_out": result.left_out,
            "is_solved": result.is_solved if result.counted else None, "run_ids": result.run_ids}


def _cost_per_solved(results: dict[str, TaskResult], solved: int) -> float | str | None:
    """Every run's cost over the tasks solved, by the one rule (rlx/runs/usage.py cost_per_solved)."""
    return cost_per_solved((c for r in results.values() for c in r.costs), solved)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact p-value: twice the smaller binomial tail of b flips one way out of b + c, at most 1."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.exp(_log_binom_pmf(k, n, 0.5)) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail)


def difference_interval(b: int, c: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The interval on (solved by A - solved by B) / n: the exact interval for the share of the b + c flips that
    went A's way, p, gives the difference (b + c) / n * (2p - 1). None when no task flipped (nothing to test)."""
    flips = b + c
    if not n or not flips:
        return None
    alpha = 1 - confidence
    low = 0.0 if b == 0 else _solve(lambda p: _upper_tail(b, flips, p) - alpha / 2)
    high = 1.0 if b == flips else _solve(lambda p: alpha / 2 - _lower_tail(b, flips, p))
    scale = flips / n
    return scale * (2 * low - 1), scale * (2 * high - 1)


def _log_binom_pmf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def _lower_tail(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return min(1.0, sum(math.exp(_log_binom_pmf(i, n, p)) for i in range(k + 1)))


def _upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k)."""
    return min(1.0, sum(math.exp(_log_binom_pmf(i, n, p)) for i in range(k, n + 1)))


def _solve(increasing, low: float = 0.0, high: float = 1.0) -> float:
    """The root of a function that increases over [low, high], by bisection (60 halvings: far below 1e-12)."""
    for _ in range(60):
        mid = (low + high) / 2
        if increasing(mid) < 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


EXPORT_COLUMNS = ("task", "category", "a_solved", "a_failed", "a_left_out", "b_solved", "b_failed", "b_left_out")


def export_rows(view: dict) -> list[dict]:
    rows = []
    for t in [*view["tasks"], *({**u, "category": "not paired"} for u in view["unpaired"])]:
        a, b = t["a"] or {}, t["b"] or {}
        rows.append({"task": t["task"], "category": t["category"],
                     **{f"{name}_{k}": side.get(k, 0) for name, side in (("a", a), ("b", b))
                        for k in ("solved", "failed", "left_out")}})
    return rows


def to_csv(view: dict) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS)
    writer.writeheader()
    writer.writerows(export_rows(view))
    return out.getvalue()


def to_jsonl(view: dict) -> str:
    return "".join(json.dumps(row) + "\n" for row in export_rows(view))
