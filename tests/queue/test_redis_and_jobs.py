"""The embedded Redis starts and stops cleanly; a real worker process runs a job and reports its progress."""

import os
import subprocess
import sys

import pytest
from rq import Queue
from rq.job import Job

from rlx.queue import read_progress
from rlx.queue.connection import connect
from rlx.queue.embedded import EmbeddedRedis, EmbeddedRedisError


def test_embedded_redis_starts_answers_and_leaves_nothing_behind(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis")
    url = server.start()
    assert url.startswith("unix://")
    assert connect(url).ping()
    pid = int(server.pidfile.read_text())
    server.stop()
    assert not server.socket.exists() and not server.pidfile.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_stale_pid_file_does_not_block_the_next_start(tmp_path):
    folder = tmp_path / "redis"
    folder.mkdir()
    (folder / "redis.pid").write_text("999999")  # a process that does not exist
    (folder / "redis.sock").write_text("")
    server = EmbeddedRedis(folder)
    try:
        assert connect(server.start()).ping()
    finally:
        server.stop()


def test_a_second_start_on_the_same_folder_is_refused_with_a_sentence(tmp_path):
    first = EmbeddedRedis(tmp_path / "redis")
    first.start()
    try:
        with pytest.raises(EmbeddedRedisError, match="another rlx already runs an embedded Redis"):
            EmbeddedRedis(tmp_path / "redis").start()
    finally:
        first.stop()


def test_a_real_worker_runs_a_job_in_the_app_context_and_reports_progress(make_config, redis_client, redis_url,
                                                                          tmp_path):
    config = make_config()
    queue = Queue("index", connection=redis_client)
    job = queue.enqueue("tests.jobs_for_tests.count_to", 5, job_timeout=60)
    env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir),
           "RLX_SOURCE": config.source, "SESSION_SECRET": "test-secret"}
    result = subprocess.run([sys.executable, "-m", "workers.rq_worker", "--burst"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    job = Job.fetch(job.id, connection=redis_client)
    assert job.is_finished, job.latest_result().exc_string
    # The job saw the app (its source folder) and counted for real.
    assert job.return_value() == {"counted": 5, "source": config.source}
    progress = read_progress(job)
    assert progress["steps"][0] == {"name": "counting", "done": 5, "total": 5, "state": "done"}
