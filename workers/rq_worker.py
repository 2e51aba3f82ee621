"""`rlx worker` (and `python -m workers.rq_worker`): one RQ worker on some or all of the index, snapshot and rollouts
queues.

The app is built once (without its pages: rlx.create_worker_app), with the module of every job imported, before RQ
forks a work horse per job, so imports and config are paid once and every job runs inside `app.app_context()`
(jobs reach the store, the source and Redis through `current_app`).

Beyond RQ's defaults, this worker
- heartbeats every few seconds and records the machine it runs on, so a killed worker is seen as dead in seconds
  (by /readyz, and by the registry cleanup that puts its job back on the queue), while one only late (busy, or its
  machine overloaded) keeps its job for a lapse of a minute (rlx/queue/liveness.py);
- retries only a job whose worker or work horse died (our jobs are idempotent); an error a job raises is final;
- on SIGTERM/SIGINT stops at once: kills the work horse, puts its job back at the front of its queue (that run is
  not counted as an attempt) and exits;
- gives the work horse the parent-death signal, so a `kill -9` of the worker leaves no horse running on its own;
- on the rollout queues, moves batches on in its upkeep: one held back by the server's cap starts its next runs
  within seconds of room being made, whether or not anyone looks at it (rlx/runs/batch.py).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
from pathlib import Path

from flask import Flask
from rq import Worker, worker_registration
from rq.registry import StartedJobRegistry, clean_registries
from rq.utils import now

from rlx.queue.connection import connect, maintenance_lock
from rlx.jobs.queues import BULK, QUEUES, ROLLOUTS
from rlx.queue import get_redis
from rlx.queue.defaults import MAINTENANCE_INTERVAL_S
from rlx.queue.liveness import MACHINE_FIELD, STARTED_FIELD, Liveness, expire_lost, process_started, this_machine
from rlx.jobs.recover import recover_batches
from rlx.runs.batch import advance_running
from rlx.store import app_store
from rlx.supervisor import die_with_parent

RUN_QUEUES = {ROLLOUTS, BULK}  # a worker taking rollouts also moves batches on


class AppWorker(Worker):
    """An RQ worker whose jobs run inside a Flask app context, and whose death is noticed in seconds."""

    flask_app: Flask | None = None

    def __init__(self, *args, liveness: Liveness = Liveness(), **kwargs):
        self.liveness = liveness
        kwargs.setdefault("job_monitoring_interval", liveness.heartbeat_s)
        kwargs.setdefault("maintenance_interval", MAINTENANCE_INTERVAL_S)
        # RQ waits worker_ttl - 15 s for a job between idle heartbeats.
        kwargs.setdefault("worker_ttl", liveness.heartbeat_s + 15)
        super().__init__(*args, **kwargs)
        self._main_pid = os.getpid()
        self._stopping_on_request = False
        self._cleaning = False

    # -- being seen alive, and dead ----------------------------------------------------------------------------

    def serialize(self) -> dict:
        # Where this worker's pid means something: a worker on the same machine can tell it is gone (liveness.py).
        return {**super().serialize(), MACHINE_FIELD: this_machine(), STARTED_FIELD: process_started(os.getpid())}

    def heartbeat(self, timeout=None, pipeline=None):
        # The record outlives a heartbeat by the lapse: a late worker keeps it, and a killed one is told apart
        # sooner by its pid (rlx/queue/liveness.py).
        super().heartbeat(self.liveness.record_ttl, pipeline=pipeline)

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        """How long a started job stays 'started' without a heartbeat before the registry cleanup calls it
        abandoned: the interval and the lapse, as for the worker (RQ adds a fixed minute)."""
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            interval = max(1, min(job.timeout - working_time, interval))
        return int(interval) + self.liveness.lapse_s

    def clean_registries(self):
        """RQ's maintenance (abandoned jobs retried or failed, stale entries dropped), under a lock that lapses in
        seconds rather than RQ's 15 minutes if this worker is killed while holding it. Inside the app context: an
        abandoned job's failure callback (a rollout's run record marked failed) reaches the store."""
        self._cleaning = True
        try:
            if self.flask_app is not None:
                with self.flask_app.app_context():
                    self._clean_registries()
            else:
                self._clean_registries()
        finally:
            self._cleaning = False
        if self._stop_requested and not self.horse_pid:
            super().request_stop(signal.SIGTERM, None)  # the stop asked for during the cleanup

    def _clean_registries(self):
        for queue in self.queues:
            with maintenance_lock(queue) as mine:
                if mine:
                    expire_lost(StartedJobRegistry(queue=queue), self.liveness)  # dead workers' jobs, now
                    clean_registries(queue, self._exc_handlers)
                    worker_registration.clean_worker_registry(queue)
                    queue.intermediate_queue.cleanup(self, queue)
        if self.flask_app is not None and {queue.name for queue in self.queues} & RUN_QUEUES:
            self._advance_batches()
        self.last_cleaned_at = now()

    def _advance_batches(self):
        """Batches held back by the server's cap (or by rollouts switched off) start their next runs from here,
        never from a page that shows them (rlx/runs/batch.py)."""
        try:
            recover_batches(app_store(), get_redis())  # once per Redis lifetime: after a reset, the store's batches
            advance_running(app_store(), get_redis())
        except Exception:
            self.log.warning("the sweep over running batches failed", exc_info=True)

    # -- the work horse ----------------------------------------------------------------------------------------

    def setup_work_horse_signals(self):
        super().setup_work_horse_signals()
        die_with_parent(signal.SIGKILL)
        if os.getppid() != self._main_pid:  # the worker died before the line above: nobody would stop us
            os._exit(1)

    def perform_job(self, job, queue, *args, **kwargs):
        if self.flask_app is None:
            return super().perform_job(job, queue, *args, **kwargs)
        with self.flask_app.app_context():
            return super().perform_job(job, queue, *args, **kwargs)

    def handle_job_failure(self, job, queue, started_job_registry=None, exc_string="", execution=None):
        if self.is_horse:
            job.retries_left = 0  # the job raised: that is its answer, a rerun would say the same
        elif self._stopping_on_request and job.retries_left is not None:
            job.retries_left += 1  # we killed the horse to stop: back on the queue, the run not counted
            job.enqueue_at_front_on_retry = True
        return super().handle_job_failure(job, queue, started_job_registry=started_job_registry,
                                          exc_string=exc_string, execution=execution)

    # -- stopping ----------------------------------------------------------------------------------------------

    def kill_horse(self, sig: signal.Signals = signal.SIGKILL):
        kill_child_group(self.horse_pid, sig)

    def request_stop(self, signum, frame):
        """Stop now, not after the current job (which may run for an hour): its job goes back on its queue."""
        self._stopping_on_request = True
        if self._cleaning:
            # RQ stops an idle worker by raising from this handler, which would cut a failure callback (a run
            # record being finalized) in half, and the cleanup would swallow the exception: stop right after it.
            self._stop_requested = True
            return
        if self.horse_pid:
            # RQ would report the horse we kill as a failed job: noise, the job goes back on its queue.
            self.log.setLevel(logging.ERROR)
            self.kill_horse(signal.SIGKILL)
        super().request_stop(signum, frame)


def kill_child_group(pid: int, sig: int) -> None:
    """Signal our child `pid` and the process group it leads; nothing when `pid` is no longer our child.

    RQ signals the group it looks up from the horse's pid. Just after the fork, before the horse has made its own
    group, that is the worker's group: the worker itself and, when it was not started in a session of its own,
    whoever started it (a shell, a test run, CI) all get SIGKILL. And a horse already reaped may have left its pid
    to a stranger. So the pid must still be our child's, and its group is signalled only once it leads one."""
    if pid <= 0 or _parent_of(pid) != os.getpid():
        return
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)  # not yet in a group of its own: it has started nothing yet either
    except ProcessLookupError:
        pass


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # after "pid (name) state": the name may hold spaces


def build_worker(app: Flask, queues=tuple(QUEUES), name: str | None = None) -> AppWorker:
    config = app.config["RLX"]
    worker = AppWorker(list(queues), connection=connect(config.redis_url), name=name, liveness=Liveness.of(config))
    worker.flask_app = app
    return worker


def parse_queues(text: str | None) -> list[str]:
    """'index,snapshot' in the order given (a worker takes jobs from the first queue first); all when empty."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()] or list(QUEUES)
    unknown = [n for n in names if n not in QUEUES]
    if unknown:
        raise ValueError(f"unknown queue {unknown[0]!r}: the queues are {', '.join(QUEUES)}.")
    return list(dict.fromkeys(names))


def boot_app() -> Flask:
    """The worker's app, with every job's module imported: once here, not in each work horse."""
    from rlx import create_worker_app
    from rlx.jobs.enqueue import JOB_MODULES
    from rlx.runs.worker_env import worker_config

    app = create_worker_app(worker_config())  # without the web's secrets: a worker signs no cookie
    for module in JOB_MODULES:
        importlib.import_module(module)
    return app


def main(burst: bool = False, queues: list[str] | None = None) -> None:
    # No RQ scheduler process: nothing we enqueue is scheduled, and it would be one more child to orphan.
    build_worker(boot_app(), queues or list(QUEUES)).work(burst=burst, logging_level="WARNING")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", action="store_true")
    parser.add_argument("--queues", default="")
    arguments = parser.parse_args()
    try:
        chosen = parse_queues(arguments.queues)
    except ValueError as exc:
        parser.error(str(exc))
    main(burst=arguments.burst, queues=chosen)
