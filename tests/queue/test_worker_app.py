"""A worker's app: what its jobs need, imported once before it forks a work horse per job, and not the pages.

Checked in a fresh interpreter, whose modules are the worker's own (this test process imports everything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from rq import Queue
from rq.job import Job

from rlx.jobs.enqueue import ROLLOUT_JOB, enqueue_rollout, enqueue_sandbox_cancel
from rlx.jobs.index import ensure_index_job
from rlx.jobs.snapshot import ensure_snapshot_job
from tests.processes import config_env

ASK = """
import json, sys
from workers.rq_worker import boot_app, build_worker
worker = build_worker(boot_app())
said = {"loaded": [m for m in sys.argv[1:] if m in sys.modules], "pages": sorted(m for m in sys.modules
        if m.startswith("rlx.web."))}
for func_name in ("rlx.jobs.index.index_dataset", %r):
    worker.warm_for(func_name)
    said[func_name] = [m for m in sys.argv[1:] if m in sys.modules]
print(json.dumps(said))
"""


def modules_of_a_worker(config, modules: list[str]) -> dict:
    env = {**os.environ, **config_env(config, config.redis_url)}
    out = subprocess.run([sys.executable, "-c", ASK % ROLLOUT_JOB, *modules], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_every_job_the_app_enqueues_finds_its_module_in_the_worker_and_the_pages_stay_out(app, redis_client):
    with app.app_context():
        jobs = [ensure_index_job("rlx-examples/terminal-basics", None), ensure_snapshot_job(),
                enqueue_rollout("run-1", "job-1", 60), enqueue_sandbox_cancel("run-1")]
    names = [job.func_name for job in jobs] + [Job.fetch("job-1", connection=redis_client)._failure_callback_name]
    assert len(Queue("rollouts", connection=redis_client).job_ids) == 2
    modules = sorted({name.rsplit(".", 1)[0] for name in names})
    said = modules_of_a_worker(app.config["RLX"], modules)
    assert said["loaded"] == modules
    assert said["pages"] == []  # a worker serves no page: their imports (0.3 s of CPU) are not paid


def test_a_worker_imports_what_a_rollout_needs_once_it_has_run_one_and_not_before(app):
    trial = ["harbor.trial.trial", "rlx.runs.local_env"]  # what Harbor's trial loads for the local sandbox
    said = modules_of_a_worker(app.config["RLX"], trial)
    assert said["loaded"] == []
    assert said["rlx.jobs.index.index_dataset"] == []  # another job's horse needs none of it
    assert said[ROLLOUT_JOB] == trial


STOP_WHILE_WARMING = """
import sys
from rq.exceptions import StopRequested
from workers import rq_worker
worker = rq_worker.build_worker(rq_worker.boot_app())
worker._install_signal_handlers()  # as work() does: SIGTERM asks the worker to stop
rq_worker.WARM_AFTER["a.job"] = ("asks_to_stop",)
try:
    worker.warm_for("a.job")
    worker.work()  # the worker's loop: a stop that was lost leaves it waiting for jobs until the test gives up
except StopRequested:  # raised as the signals are let through, before the loop had its own handler
    pass
print("stopped")
"""


def test_a_worker_asked_to_stop_while_it_imports_for_the_next_rollout_stops(app, tmp_path):
    # SIGTERM lands while the module is imported (a test stopping its worker right after a rollout did): raised in
    # the import machinery, its StopRequested was once dropped, and the worker lived on, taking other tests' jobs.
    # The module below imports more after the signal, as a real one would.
    (tmp_path / "asks_to_stop.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n"
                                              "import harbor.trial.trial\n")
    env = {**os.environ, **config_env(app.config["RLX"], app.config["RLX"].redis_url),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-c", STOP_WHILE_WARMING], env=env, capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the worker did not stop: {(exc.stderr or b'')[-2000:]!r}") from None
    assert done.stdout.strip().splitlines()[-1:] == ["stopped"], done.stderr[-2000:]
