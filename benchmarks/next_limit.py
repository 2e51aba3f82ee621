"""Where the cost curves (scaling.py) say the design stops serving, and what takes over there.

Each measured cost is fitted, between the two largest scales, as a power of the catalog's size (an exponent of 1 is
linear growth), and followed to the scale where it crosses its bound: a latency target, the hour the snapshot job
has, the machine's memory. The first bound crossed names the next limit, with the figures it follows from.
"""

from __future__ import annotations

import math

from benchmarks.markdown import num, table

HOUR_S = 3600  # the snapshot job runs hourly: a build past the hour delays the next one
SEARCH_P99_MS = 12.0  # the search mix's p99 target at 10x (scaling.TARGET_10X_P99_MS)
SEARCH_RPS_8 = 300  # the search mix's throughput target (search.TARGET_RPS_8)
WORKER_MB = 250  # a gunicorn worker's RSS target at 10x (scaling.WORKER_RSS_MB)
SEARCH_COSTS = ("search p99", "search req/s")
FARTHEST = 10_000  # scales past this are not followed: a curve that flat says nothing about them


def _costs(x: dict, memory_mb: float | None) -> dict[str, tuple[float | None, float | None, str]]:
    """name -> (value at this scale, its bound, unit); the bound None when the machine does not say it."""
    build, app, rss = x["build"], x["app"], x.get("rss") or {}
    workers = rss.get("gunicorn_workers") or [None]
    return {
        "search p99": (app.get("p99_ms"), SEARCH_P99_MS, "ms"),
        "search req/s": (app.get("rps_8"), SEARCH_RPS_8, "req/s"),
        "snapshot build": (build.get("seconds"), HOUR_S, "s"),
        "build peak RSS": (build.get("peak_rss_mb"), memory_mb, "MB"),
        "snapshot file": (build["size"] / 1e6 if build.get("size") else None, memory_mb, "MB"),
        "worker RSS": (max(workers) if workers[0] is not None else None, WORKER_MB, "MB"),
    }


def exponent(a: tuple[float, float], b: tuple[float, float]) -> float | None:
    """The power of the scale that goes through (scale, value) points a and b."""
    (sa, va), (sb, vb) = a, b
    if not (va and vb and va > 0 and vb > 0 and sb > sa):
        return None
    return math.log(vb / va) / math.log(sb / sa)


def _past(value: float, bound: float, falling: bool) -> bool:
    return value <= bound if falling else value >= bound


def crossing(points: list[tuple[float, float]], bound: float | None, falling: bool) -> tuple[float | None, bool]:
    """Where the curve through (scale, value) points, each stretch a power of the scale, reaches `bound` (a
    throughput bound is a floor, the others ceilings), past the last point on the last stretch's power; and whether
    it was past it at the smallest scale already (then that scale, an upper bound on the crossing). None: never."""
    if bound is None or not points:
        return None, False
    if _past(points[0][1], bound, falling):
        return points[0][0], True
    for a, b in zip(points, points[1:]):
        power = exponent(a, b)
        if power and (_past(b[1], bound, falling) or b is points[-1]):
            at = a[0] * (bound / a[1]) ** (1 / power) if abs(power) > 1e-6 else math.inf
            return (at, False) if (a[0] < at <= FARTHEST and (power < 0) == falling) else (None, False)
    return None, False


def limits(s: dict, memory_mb: float | None) -> list[dict]:
    """Every cost with its exponent between the two largest scales and where it crosses its bound, nearest first."""
    points = sorted(s.values(), key=lambda x: x["scale"])
    if len(points) < 2:
        return []
    costs = [_costs(x, memory_mb) for x in points]
    out = []
    for name, (value, bound, unit) in costs[-1].items():
        curve = [(x["scale"], c[name][0]) for x, c in zip(points, costs) if c[name][0]]
        power = exponent(curve[-2], curve[-1]) if len(curve) >= 2 else None
        at, already = crossing(curve, bound, falling=name == "search req/s")
        out.append({"name": name, "unit": unit, "low": costs[-2][name][0], "high": value, "power": power,
                    "bound": bound, "at": at, "already": already})
    return sorted(out, key=lambda c: (c["at"] is None, c["at"] or 0))


def _memory_mb(machine: dict) -> float | None:
    try:
        return float(str(machine.get("memory", "")).split()[0]) * 1024
    except (ValueError, IndexError):
        return None


def _at(cost: dict) -> str:
    if cost["at"] is None:
        return "—"
    return f"≤ {cost['at']:g}×" if cost["already"] else f"{cost['at']:,.0f}×"


def render(r: dict) -> str | None:
    s = r.get("scaling") or {}
    found = limits(s, _memory_mb(r.get("machine") or {}))
    if not found:
        return None
    scales = sorted(x["scale"] for x in s.values())
    low, high = (f"{x:g}×" for x in scales[-2:])
    rows = [[c["name"], num(c["low"], 1), num(c["high"], 1), c["unit"], num(c["power"], 2),
             f"{num(c['bound'], 0)} {c['unit']}", _at(c)] for c in found]
    first = found[0]
    text = ("### The next limit\n\nEach cost, from one measured scale to the next, as a power of the catalog's size "
            "(1: linear; the power shown is between " + low + " and " + high + "), followed to the scale where it "
            "crosses its bound (the search targets at 10×, the snapshot job's hour, the machine's memory):\n\n"
            + table(["cost", low, high, "unit", "power", "bound", "crossed at"], rows, "lrrlrrr"))
    if first["at"] is None:
        return text + "\nNo cost crosses its bound on these curves.\n"
    text += (f"\nThe first is **{first['name']}**, "
             + (f"past its bound already at {first['at']:g}×" if first["already"]
                else f"at about {first['at']:,.0f}× today's catalog") + ". ")
    if first["name"] in SEARCH_COSTS:
        text += ("SQLite answers each search on one core, from the copy of the snapshot each process opens: a broad "
                 "search's work (its matches counted, its facets drawn, its page ranked) grows with the catalog, and "
                 "so do its slowest answers and the searches a host answers per second. Past this point a search "
                 "engine takes over the search answers: Tantivy-based (Quickwit, ParadeDB) or Lucene-based "
                 "(OpenSearch) engines keep facet values as columns per segment and search segments on several "
                 "cores and hosts at once, so one query's time is split instead of growing on one core. Pages stay "
                 "on the snapshot: an environment or task page reads a few rows by key.\n")
    else:
        text += ("Past this point one SQLite file per process, copied to every host each hour, stops serving: the "
                 "file or its build outgrows the machine. A database server (PostgreSQL with read replicas) takes "
                 "over: one buffer pool per host, changes written as they come rather than a new file per hour.\n")
    return text
