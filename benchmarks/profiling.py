"""Profiling tools for when a target is missed: per-statement SQLite times, and pyinstrument over a Python path.

The statement profile runs the app's own query function on a connection that times each statement (fetching its
rows at once, so the time a lazy cursor spends while iterated is counted where it is spent). pyinstrument samples
a call (a snapshot build, requests through the Flask app in process) and the report keeps its heaviest frames.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from typing import Callable

from benchmarks.stats import median


class _Rows(list):
    _taken = 0  # rows handed out by fetchmany (a walk of the env sets reads in chunks, then closes)

    def fetchone(self):
        return self[0] if self else None

    def fetchall(self):
        return list(self)

    def fetchmany(self, size: int):
        chunk = self[self._taken:self._taken + size]
        self._taken += len(chunk)
        return chunk

    def close(self):
        pass


class _TimedConnection:
    """Enough of a sqlite3.Connection for the query functions: execute() runs, fetches and times."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.log: list[tuple[str, float]] = []

    def execute(self, sql: str, params=()):
        started = time.perf_counter()
        rows = _Rows(self.db.execute(sql, params).fetchall())
        self.log.append((" ".join(sql.split()), (time.perf_counter() - started) * 1000))
        return rows


def statements(call: Callable[[object], object], db: sqlite3.Connection, repeats: int = 15) -> list[tuple[str, float]]:
    """(statement, median ms) for each statement `call(db)` runs, in the order it runs them."""
    timed = _TimedConnection(db)
    runs = []
    for _ in range(repeats):
        timed.log = []
        call(timed)
        runs.append(timed.log)
    shapes = [sql for sql, _ in runs[0]]
    return [(shape, median([run[i][1] for run in runs if i < len(run)])) for i, shape in enumerate(shapes)]


def short_sql(sql: str, width: int = 110) -> str:
    sql = re.sub(r"SELECT rowid, id, key, .*? FROM", "SELECT <card columns> FROM", sql)
    sql = re.sub(r"SELECT t\.rowid, t\.env_id.*? FROM", "SELECT <task card columns> FROM", sql)
    return sql if len(sql) <= width else sql[: width - 1] + "…"


def sampled(call: Callable[[], object], keep: float = 0.04, max_lines: int = 28) -> str:
    """pyinstrument's call tree for `call()`, only frames over `keep` of the total, as plain text."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        return "(pyinstrument is not installed: `uv sync --group bench`)"
    profiler = Profiler(interval=0.0005)
    profiler.start()
    try:
        call()
    finally:
        profiler.stop()
    text = profiler.output_text(unicode=False, color=False, show_all=False, timeline=False)
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("_ ", "Recorded", "Samples",
                                                                                      "Duration", "CPU time",
                                                                                      "Program"))]
    total = _seconds(lines[0]) if lines else None
    kept = []
    for line in lines:
        value = _seconds(line)
        if value is None or (total and value < keep * total):
            continue
        if "benchmarks/" in line and ("sampled" in line or "<lambda>" in line or "<listcomp>" in line):
            continue  # the profiler's own frames around the call
        kept.append(line.replace(os.getcwd() + "/", ""))
    return "\n".join(kept[:max_lines])


def _seconds(line: str) -> float | None:
    match = re.match(r"^[\s|`\-]*([0-9.]+)\s", line)
    return float(match.group(1)) if match else None
