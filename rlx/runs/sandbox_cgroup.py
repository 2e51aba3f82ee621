"""A control group per sandbox, so memory, processes and CPU are capped for the sandbox as a whole, not per process.

RLIMIT_AS caps one process: a task forking eight 256 MB processes took 2 GB. A group under the worker's own
(cgroup v2 where its controllers are delegated to us, else the v1 hierarchies) caps them together. Every process
of the sandbox joins it before it execs: the init (bwrap) and each command, which `nsenter` starts as the worker's
child, not the init's. The sandbox's tmpfs pages are charged to the group of the process that wrote them, so the
memory cap is the task's memory plus its storage. The CPU quota (the task's `cpus`, as CFS quota per 100 ms
period: cpu.max in v2, cpu.cfs_quota_us in v1) is optional: where the cpu controller is not ours, memory and
processes still hold, and `cpus` is None.

`kind` says what the host gave ("cgroup v2", "cgroup v1", or None: then only the per-process limits hold).
Written here rather than taken from a library: the cgroup packages on PyPI (cgroupspy, cgroup-utils) are v1-only
and unmaintained; this is a handful of file writes.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_MB = 1024 * 1024
_PERIOD_US = 100_000


@dataclass
class Group:
    kind: str | None = None
    folders: list[Path] = field(default_factory=list)
    cpus: float | None = None  # the CPU quota the group holds (None: none, the host's cpu controller is not ours)

    def join(self) -> None:
        """Move the calling process into the group (a preexec_fn, between fork and exec)."""
        pid = str(os.getpid())
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(pid)

    def remove(self) -> None:
        """Remove the group once its processes are gone (they die with the sandbox's pid namespace)."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy: its last processes are still being reaped
                    time.sleep(0.05)
        self.folders = []

    def memory_peak(self) -> int | None:
        for folder in self.folders:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                try:
                    return int((folder / name).read_text())
                except (OSError, ValueError):
                    continue
        return None

    def cpu_throttled(self) -> int | None:
        """How many quota periods the group was held back in (its cpu.stat), None without a CPU quota."""
        for folder in self.folders:
            try:
                lines = (folder / "cpu.stat").read_text().split("\n")
            except OSError:
                continue
            stats = dict(line.split() for line in lines if len(line.split()) == 2)
            if "nr_throttled" in stats:
                return int(stats["nr_throttled"])
        return None


def create(memory_mb: int, processes: int, cpus: float | None = None, root: Path = ROOT) -> Group:
    """A new group with these caps, or an empty Group (kind None) when the host lets us make none."""
    name = f"rlx-sandbox-{uuid.uuid4().hex[:12]}"
    for attempt in (_create_v2, _create_v1):
        group = attempt(root, name, memory_mb * _MB, processes, cpus)
        if group is not None:
            return group
    return Group()


def _own_groups() -> dict[str, str]:
    """controller (or "" for v2) -> this process's path in it, from /proc/self/cgroup."""
    groups = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = path
    return groups


def _create_v2(root: Path, name: str, memory: int, processes: int, cpus: float | None) -> Group | None:
    own = _own_groups().get("")
    for mount in (root, root / "unified"):
        if own is None or not (mount / "cgroup.controllers").exists():
            continue
        parent = mount / own.lstrip("/")
        try:
            delegated = (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            continue
        if not {"memory", "pids"} <= set(delegated):
            continue
        folder = parent / name
        try:
            folder.mkdir()
            (folder / "memory.max").write_text(str(memory))
            _write_if_there(folder / "memory.swap.max", "0")
            (folder / "pids.max").write_text(str(processes))
            if cpus and "cpu" in delegated:
                (folder / "cpu.max").write_text(f"{max(1000, int(cpus * _PERIOD_US))} {_PERIOD_US}")
        except OSError:
            _rmdir_quietly(folder)
            continue
        return Group("cgroup v2", [folder], cpus if cpus and "cpu" in delegated else None)
    return None


def _create_v1(root: Path, name: str, memory: int, processes: int, cpus: float | None) -> Group | None:
    own = _own_groups()
    made: list[Path] = []
    try:
        for controller in ("memory", "pids"):
            if controller not in own or not (root / controller / "cgroup.procs").exists():
                raise OSError(f"no v1 {controller} hierarchy")
            folder = root / controller / own[controller].lstrip("/") / name
            folder.mkdir()
            made.append(folder)
        memory_folder, pids_folder = made
        (memory_folder / "memory.limit_in_bytes").write_text(str(memory))
        _write_if_there(memory_folder / "memory.memsw.limit_in_bytes", str(memory))  # no swap past the cap
        (pids_folder / "pids.max").write_text(str(processes))
    except OSError:
        for folder in made:
            _rmdir_quietly(folder)
        return None
    quota = _cpu_quota_v1(root, own, name, cpus, made) if cpus else None
    return Group("cgroup v1", made, quota)


def _cpu_quota_v1(root: Path, own: dict[str, str], name: str, cpus: float, made: list[Path]) -> float | None:
    """The CPU quota in the v1 cpu hierarchy, when there is one we may write; the memory and process caps hold
    without it."""
    if "cpu" not in own or not (root / "cpu" / "cgroup.procs").exists():
        return None
    folder = root / "cpu" / own["cpu"].lstrip("/") / name
    try:
        folder.mkdir()
    except OSError:
        return None
    try:
        (folder / "cpu.cfs_period_us").write_text(str(_PERIOD_US))
        (folder / "cpu.cfs_quota_us").write_text(str(max(1000, int(cpus * _PERIOD_US))))
    except OSError:
        _rmdir_quietly(folder)
        return None
    made.append(folder)
    return cpus


def _write_if_there(path: Path, value: str) -> None:
    if path.exists():
        path.write_text(value)


def _rmdir_quietly(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
