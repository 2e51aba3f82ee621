"""When a worker, or the job it runs, counts as dead: the one rule every place that decides it follows (the run
page settling a run, /readyz counting workers, the registry cleanup that retries or fails an abandoned job).

A worker writes its heartbeat every `heartbeat_s`, idle or busy (RQ: between dequeue waits, and while it watches its
work horse). A busy machine can delay that by many seconds without anything being wrong, so lateness alone proves
nothing until the heartbeat has lapsed by `lapse_s` more (RQ's own margin is a minute past the interval). Sooner
than that a worker is dead only when it is provably gone: its heartbeat late by a few beats and its process absent
from this very machine (the same boot and process namespace, recorded with the worker; on another machine only
the lapse can tell). And a job whose own heartbeat is fresh is never given up, whatever its worker's record says.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rq import Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.utils import now

from rlx.queue.defaults import LATE_BEATS, WORKER_HEARTBEAT_S, WORKER_LAPSE_S

MACHINE_FIELD = "rlx_machine"  # in a worker's Redis record: where its pid means something (see this_machine)
# Also in the record: when its process started (clock ticks after boot, /proc/<pid>/stat): this machine reuses a
# pid within minutes (pid_max is 32,768), and a stranger holding a dead worker's pid is not that worker.
STARTED_FIELD = "rlx_started"


@dataclass(frozen=True)
class Liveness:
    heartbeat_s: int = WORKER_HEARTBEAT_S
    lapse_s: int = WORKER_LAPSE_S

    @classmethod
    def of(cls, config) -> "Liveness":
        return cls(heartbeat_s=config.worker_heartbeat_s, lapse_s=config.worker_lapse_s)

    @property
    def late_s(self) -> int:
        """A heartbeat older than this is late: a few beats missed, the worker busy, stopped or dead."""
        return LATE_BEATS * self.heartbeat_s

    @property
    def record_ttl(self) -> int:
        """How long a worker's record and its job's registry entry outlive their last heartbeat."""
        return self.heartbeat_s + self.lapse_s


def this_machine() -> str:
    """This kernel's boot and this process namespace: two workers with the same value see each other's pids."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""  # not Linux: no pid is trusted, only the lapse tells


def worker_dead(worker: Worker | None, liveness: Liveness) -> bool:
    """True when the worker is surely dead: its record gone (it lapsed), its heartbeat lapsed, or late with its
    process gone from this machine."""
    if worker is None:
        return True
    age = _age(worker.last_heartbeat)
    if age > liveness.record_ttl:
        return True
    return age > liveness.late_s and _process_gone(worker)


def job_lost(job: Job, liveness: Liveness) -> bool:
    """A started job whose worker is dead and whose own heartbeat is not fresh: nothing will finish it."""
    if job.get_status(refresh=False) != JobStatus.STARTED or not job.worker_name:
        return False  # not started, or not yet picked up by a worker
    if _age(job.last_heartbeat) <= liveness.late_s:
        return False
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + job.worker_name, connection=job.connection)
    return worker_dead(worker, liveness)


def expire_lost(registry: StartedJobRegistry, liveness: Liveness, only: str | None = None) -> None:
    """Mark the entries of lost jobs (`only` that job's, when given) as expired, so RQ's registry cleanup treats
    them as abandoned now instead of when their entry lapses."""
    moment = now().timestamp()
    for entry, expires in registry.connection.zrange(registry.key, 0, -1, withscores=True):
        job_id = registry.parse_job_id(entry)
        if expires <= moment or (only is not None and job_id != only):
            continue
        try:
            job = Job.fetch(job_id, connection=registry.connection)
        except NoSuchJobError:
            continue
        if job_lost(job, liveness):
            registry.connection.zadd(registry.key, {entry: moment - 1}, xx=True)


def _age(moment: datetime | None) -> float:
    return math.inf if moment is None else (now() - moment).total_seconds()


def process_started(pid: int) -> str | None:
    """When process `pid` started (clock ticks after boot), or None when there is no such process."""
    stat = _stat(pid)
    return stat[19] if stat else None


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "pid (name)" (the name may hold spaces): state first."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _process_gone(worker: Worker) -> bool:
    machine, started = (v.decode() if isinstance(v, bytes) else v
                        for v in worker.connection.hmget(worker.key, MACHINE_FIELD, STARTED_FIELD))
    if not machine or machine != this_machine() or not worker.pid:
        return False  # elsewhere, or not recorded: its pid says nothing here
    stat = _stat(worker.pid)
    if stat is None:
        return True
    # A zombie (killed, not yet reaped by its parent) runs nothing; another start time is another process.
    return stat[0] == "Z" or (started is not None and stat[19] != started)
