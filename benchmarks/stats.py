"""Percentiles and medians, the same way for every measurement."""

from __future__ import annotations

import statistics


def percentile(values: list[float], pct: float) -> float:
    """The pct-th percentile by nearest rank (as wrk reports it), so the floor's and the servers' figures agree."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
