"""`rlx demo` as a user runs it: the real CLI starting Redis, two workers and the web server. A part killed for real
is started again, a visitor's dataset never waits behind bulk indexing, the catalog is published at once, and
stopping the demo leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from rq import Worker
from rq.job import Job

from rlx.adapters.indexes import load_index
from rlx.live.localenv import venv_ready
from rlx.queue.connection import connect
from rlx.snapshot.schema import pointer_name
from rlx.store import Store
from tests.big_folders import make_harbor_dataset
from tests.processes import (alive, descendants_of, free_port, remember, signal_if_same, started_at, still_running,
                             wait_until)

BIG, SMALL = "gen-org/a-big", "gen-org/z-small"  # the bulk run indexes in id order: the big one first


@pytest.fixture(scope="module")
def big_folder(tmp_path_factory):
    """A folder laid out like the Hub: one dataset of 5,000 tiny tasks (a long bulk run) and one of one task."""
    root = tmp_path_factory.mktemp("big-source")
    make_harbor_dataset(root, BIG, 5000)
    make_harbor_dataset(root, SMALL, 1)
    return root


class Demo:
    def __init__(self, source: Path, storage: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.storage = storage
        self.log_path = storage.parent / "demo.log"
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HF_ENDPOINT")}
        # Health checks on demand only: these tests time the workers, which a check of every bundled dataset would
        # keep busy for minutes (the demo's own default is auto).
        env.update(STORAGE_DIR=str(storage), RLX_SOURCE=str(source), SESSION_SECRET="test-secret",
                   RLX_HEALTH_CHECKS="on-demand")
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "rlx.cli", "demo", "--port", str(self.port),
                                             "--workers", "1"], env=env, stdout=log, stderr=subprocess.STDOUT)
        self.redis = connect(f"unix://{Store(storage).redis_dir / 'redis.sock'}")
        self.seen: dict[int, int] = {}  # pid: start, so that a pid taken by another process since is left alone

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            return 0, ""

    def readyz(self) -> dict:
        status, body = self.get("/readyz")
        return json.loads(body) if body.startswith("{") else {}

    def workers(self) -> dict[str, Worker]:
        """The live workers by their queues ('index', 'snapshot,index,rollouts,bulk')."""
        try:
            return {",".join(w.queue_names()): w for w in Worker.all(connection=self.redis)
                    if alive(w.pid) and w.pid in descendants_of(self.process.pid)}
        except Exception:
            return {}

    def note_processes(self) -> dict[int, int]:
        self.seen |= remember(descendants_of(self.process.pid))
        return self.seen

    def still_running(self) -> list[int]:
        """The processes this demo ever had that still run (each the very one seen, never a reuse of its pid)."""
        return [pid for pid, start in self.seen.items() if still_running(pid, start)]

    def stop(self) -> None:
        self.note_processes()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # Ctrl-C
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        for pid, start in self.seen.items():  # never leave a test's process running, even when the test failed
            signal_if_same(pid, start)


@pytest.fixture
def start_demo(tmp_path):
    demos = []

    def start(source: Path) -> Demo:
        demo = Demo(source, tmp_path / "data")
        demos.append(demo)
        assert wait_until(lambda: demo.readyz().get("ok") and len(demo.workers()) == 2, timeout=90), demo.log()
        demo.note_processes()
        return demo

    yield start
    for demo in demos:
        demo.stop()


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_killed_worker_or_redis_is_started_again_and_the_web_keeps_answering(start_demo):
    demo = start_demo(EXAMPLES)
    status, home = demo.get("/")
    assert status == 200 and "A demo on the bundled examples" in home  # the demo opens with its banner
    # it says what it is doing while it starts, and when it is ready; the OpenEnv example's environment, made once,
    # is not announced again
    assert wait_until(lambda: "rlx: ready after" in demo.log(), timeout=30), demo.log()
    assert "rlx: starting Redis" in demo.log()
    if venv_ready():
        assert "preparing the OpenEnv example" not in demo.log()
    assert "Sign in as the demo user" in demo.get("/signin")[1]  # the demo's stand-in account
    old = demo.workers()["index"]

    os.kill(old.pid, signal.SIGKILL)

    assert demo.get("/")[0] == 200  # the web server did not go down with it
    assert wait_until(lambda: "the index worker stopped (killed by SIGKILL); starting it again in" in demo.log(),
                      timeout=30), demo.log()
    assert wait_until(lambda: (w := demo.workers().get("index")) and w.pid != old.pid, timeout=60), demo.log()

    redis_pid = int((Store(demo.storage).redis_dir / "redis.pid").read_text())
    os.kill(redis_pid, signal.SIGKILL)

    assert wait_until(lambda: "the embedded Redis stopped (killed by SIGKILL); starting it again in" in demo.log(),
                      timeout=30), demo.log()
    ready = wait_until(lambda: (r := demo.readyz()).get("ok") and r["checks"]["workers"]["count"] == 2 and r,
                       timeout=90)
    assert ready, demo.log()
    assert int((Store(demo.storage).redis_dir / "redis.pid").read_text()) != redis_pid
    assert demo.get("/")[0] == 200 and demo.process.poll() is None


def test_a_worker_that_keeps_dying_at_start_makes_the_demo_give_up_with_a_sentence(start_demo):
    demo = start_demo(EXAMPLES)
    for _ in range(5):
        worker = wait_until(lambda: demo.workers().get("index"), timeout=60)
        assert worker, demo.log()
        started = started_at(worker.pid)
        demo.note_processes()
        os.kill(worker.pid, signal.SIGKILL)
        wait_until(lambda: not still_running(worker.pid, started), timeout=10)

    assert demo.process.wait(60) != 0
    assert ("the index worker stopped (killed by SIGKILL), 5 times in a row within 30 s of starting; giving up "
            "and stopping the rest.") in demo.log()
    demo.note_processes()
    assert not demo.still_running()


def test_stopping_the_demo_during_long_jobs_leaves_no_process_running(start_demo, big_folder):
    demo = start_demo(big_folder)
    demo.get(f"/d/{BIG}")  # the index worker works on it too

    def both_horses_busy():
        return all(len(descendants_of(w.pid)) == 1 for w in demo.workers().values()) and len(demo.workers()) == 2

    assert wait_until(both_horses_busy, timeout=60), demo.log()
    demo.note_processes()

    demo.process.send_signal(signal.SIGINT)
    assert demo.process.wait(60) == 0

    assert wait_until(lambda: not demo.still_running(), timeout=10), \
        [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in demo.still_running()]


def test_a_visitors_small_dataset_is_indexed_while_bulk_indexing_runs_and_the_catalog_is_published_first(
        start_demo, big_folder):
    demo = start_demo(big_folder)

    # The catalog is published before any dataset is indexed: both datasets listed, no task counted yet.
    pointer_path = Store(demo.storage).snapshots_dir / pointer_name()
    first = wait_until(lambda: pointer_path.exists() and json.loads(pointer_path.read_text()), timeout=60)
    assert first and first["counts"]["datasets"] == 2 and first["counts"]["tasks"] == 0, first

    assert "for the first time" in demo.get(f"/d/{SMALL}")[1]
    assert wait_until(lambda: json.loads(demo.get(f"/api/env/{SMALL}")[1] or "{}").get("state") == "ready",
                      timeout=90), demo.log()

    # ...while the bulk run is still busy with the big dataset.
    assert Job.fetch("snapshot-build", connection=demo.redis).get_status() == "started"
    big = load_index(Store(demo.storage), BIG)
    assert big is None or not big.complete


def test_a_bulk_worker_killed_mid_job_leaves_no_horse_and_its_job_runs_again(start_demo, big_folder):
    demo = start_demo(big_folder)
    bulk = demo.workers()["snapshot,index,rollouts,bulk"]
    horses = wait_until(lambda: remember(descendants_of(bulk.pid)), timeout=60)
    assert horses and len(horses) == 1, demo.log()
    [(horse, started)] = horses.items()

    os.kill(bulk.pid, signal.SIGKILL)

    assert wait_until(lambda: not still_running(horse, started), timeout=5), "the work horse outlived its worker"
    assert wait_until(lambda: "the bulk worker stopped (killed by SIGKILL); starting it again in" in demo.log(),
                      timeout=30), demo.log()
    # The snapshot job is run again by the new bulk worker, as its second run of three.
    def second_run_under_way():
        job = Job.fetch("snapshot-build", connection=demo.redis)
        worker = demo.workers().get("snapshot,index,rollouts,bulk")
        return job.get_status() == "started" and job.retries_left == 1 and worker and descendants_of(worker.pid)

    assert wait_until(second_run_under_way, timeout=60), demo.log()
