"""A worker's app: what its jobs need, imported once before it forks a work horse per job, and not the pages.

Checked in a fresh interpreter, whose modules are the worker's own (this test process imports everything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from rq import Queue
from rq.job import Job

from rlx.jobs.enqueue import enqueue_rollout, enqueue_sandbox_cancel
from rlx.jobs.index import ensure_index_job
from rlx.jobs.snapshot import ensure_snapshot_job
from tests.processes import config_env

ASK = """
import json, sys
from workers.rq_worker import boot_app, build_worker
worker = build_worker(boot_app())
said = {"loaded": [m for m in sys.argv[1:] if m in sys.modules], "pages": sorted(m for m in sys.modules
        if m.startswith("rlx.web."))}
print(json.dumps(said))
"""


def modules_of_a_worker(config, modules: list[str]) -> dict:
    env = {**os.environ, **config_env(config, config.redis_url)}
    out = subprocess.run([sys.executable, "-c", ASK, *modules], env=env, capture_output=True,
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
