"""Small numeric helpers shared by the measurements: percentiles, medians, a stopwatch, human units."""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager


def percentile(values: list[float], pct: float) -> float:
    """The pct-th percentile by nearest rank (what wrk reports too), so the app's and the floor's figures agree."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


@contextmanager
def stopwatch():
    """`with stopwatch() as elapsed: ...; elapsed()` gives seconds since the block started (frozen at its end)."""
    started = time.perf_counter()
    ended: list[float] = []
    yield lambda: (ended[0] if ended else time.perf_counter()) - started
    ended.append(time.perf_counter())


def ms(seconds: float, digits: int = 2) -> str:
    return f"{seconds * 1000:,.{digits}f}"


def kb(size: int) -> str:
    return f"{size / 1000:,.1f} KB"


def mb(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"
