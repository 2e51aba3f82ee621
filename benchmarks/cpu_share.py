"""How much of the machine's CPU other processes took while a timed run ran.

This VM's two cores are shared with whatever else runs on it. Timed at 10× with each request's share of the
worker's time read from the kernel (/proc/thread-self/schedstat), the slowest 1 % of one-connection requests spent
most of their time runnable but waiting for a core (a 126 ms request: 5 ms of CPU, 120 ms on the run queue), while
processes outside the benchmark used one to two cores. That tail is the machine's, not the app's; so each run notes
the CPU that processes outside this benchmark's own process tree (the servers it started, wrk, itself) used during
it, in cores, for the report to set beside the run's p99.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, TypeVar

PROC = Path("/proc")
OTHERS_KEY = "others_cores"

T = TypeVar("T")


def busy_ticks(proc: Path = PROC) -> int | None:
    """Clock ticks every core spent on anything but idling (/proc/stat), None off Linux."""
    try:
        fields = (proc / "stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return user + nice + system + irq + softirq + steal


def steal_and_busy(proc: Path = PROC) -> tuple[int, int] | None:
    """Clock ticks the hypervisor gave to other machines while this VM wanted its cores (steal), and every core's
    busy ticks (steal included), from /proc/stat; None off Linux."""
    try:
        fields = (proc / "stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    return int(fields[8]), busy_ticks(proc) or 0


def stolen_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the busy time between two readings that was stolen: a wall-clock figure taken while it was
    high is slower by about that much, whatever the app did."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return round((after[0] - before[0]) / (after[1] - before[1]), 3)


def tree_ticks(root: int, proc: Path = PROC) -> int:
    """Clock ticks used by `root` and its live descendants, with what each has from children it reaped (wrk's, once
    it exits, counts in this process's)."""
    parent, ticks = {}, {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        ticks[pid] = sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    total = 0
    for pid, used in ticks.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parent:
            ancestor = parent[ancestor]
        if ancestor == root:
            total += used
    return total


def during(work: Callable[[], T], root: int | None = None, proc: Path = PROC,
           clock: Callable[[], float] = time.monotonic) -> tuple[T, float | None]:
    """`work()`, and the cores (CPU seconds per second) that processes outside `root`'s tree (this process by
    default) used while it ran; None where the kernel does not say."""
    root = root or os.getpid()
    busy = busy_ticks(proc)
    if busy is None:
        return work(), None
    ours, started = tree_ticks(root, proc), clock()
    result = work()
    busy_after, ours_after, seconds = busy_ticks(proc), tree_ticks(root, proc), clock() - started
    if busy_after is None or seconds <= 0:
        return result, None
    others = (busy_after - busy) - (ours_after - ours)
    return result, round(max(0, others) / os.sysconf("SC_CLK_TCK") / seconds, 2)
