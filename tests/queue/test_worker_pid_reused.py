"""A worker whose process is gone is dead even when another process has since taken its pid: this machine hands out
pids again within minutes (pid_max is 32,768), and a stranger holding the number must not keep a dead worker's job
waiting for the full lapse."""

from __future__ import annotations

import os
import subprocess
from datetime import timedelta

from rq import Worker
from rq.utils import now, utcformat

from rlx.queue.liveness import Liveness, worker_dead
from workers.rq_worker import AppWorker

# Late after one second, lapsed only after ten minutes: within the test only the process check can decide.
LIVENESS = Liveness(heartbeat_s=1, lapse_s=600)


def _recorded_with(redis_client, worker: AppWorker, pid: int) -> Worker:
    """The worker's record as another process reads it: its pid set to `pid`, its heartbeat half a minute old."""
    redis_client.hset(worker.key, mapping={"pid": pid, "last_heartbeat": utcformat(now() - timedelta(seconds=30))})
    return Worker.find_by_key(worker.key, connection=redis_client)


def test_a_late_worker_whose_pid_another_process_took_is_dead(redis_client):
    worker = AppWorker(["index"], connection=redis_client, name="pid-reused", liveness=LIVENESS)
    worker.register_birth()  # recorded as this test's process, with its start time
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        assert worker_dead(_recorded_with(redis_client, worker, stranger.pid), LIVENESS), \
            "a process that started after the worker was taken for the worker"
        assert not worker_dead(_recorded_with(redis_client, worker, os.getpid()), LIVENESS), \
            "the worker's own process, still running, was taken for gone"
    finally:
        stranger.kill()
        stranger.wait()
        worker.register_death()
