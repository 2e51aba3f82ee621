"""A full store is an answer, not a 500: the store is a small tmpfs the test mounts, filled to the last block.

A new run is refused with 503 and a sentence (its slot given back), /readyz says the store takes no writes, the
pages that only read (a run, /community, the previews) still answer, and a run whose store filled up before it
started ends "infrastructure error" in one sentence, its slot returned. No raw exception text is shown.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import uuid

import pytest
import redis as redis_lib

from rlx import create_app
from rlx.runs import limits
from rlx.runs.failures import QUEUE_DOWN, STORE_FULL, failure_of, failure_from_text
from tests.conftest import index_now
from tests.runs_fixtures import PROBES, probes_folder, start_worker  # noqa: F401
from tests.runs_helpers import wait_for
from tests.runs.test_run_pages import post_run, run_id_of

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")
TASK = f"/t/{PROBES}/write-answer"
RAW_WORDS = ("Errno", "No space left", "Traceback", "OSError", "sqlite3", ".sock")


@pytest.fixture
def small_store(tmp_path):
    """STORAGE_DIR on a 24 MiB tmpfs of its own (root only: skipped where the test cannot mount)."""
    folder = tmp_path / "small-store"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture
def full_app(make_config, redis_client, probes_folder, small_store):
    app = create_app(make_config(STORAGE_DIR=str(small_store), RLX_SOURCE=str(probes_folder)))
    index_now(app, PROBES)
    return app


def fill(folder) -> None:
    """Write zeros until the disk says it is full."""
    with open(folder / f"filler-{uuid.uuid4().hex}", "wb") as out:
        block = bytes(1 << 20)
        try:
            while True:
                out.write(block)
                out.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    for size in (65536, 4096, 512, 1):  # the last partial blocks too
        try:
            with open(folder / f"filler-{uuid.uuid4().hex}", "wb") as out:
                while True:
                    out.write(bytes(size))
                    out.flush()
        except OSError:
            pass


def slots_held(redis_client) -> int:
    return redis_client.zcard(limits.ALL_KEY)


def no_raw_text(html: str) -> bool:
    return not any(word in html for word in RAW_WORDS)


def test_a_full_store_refuses_a_new_run_with_503_and_readyz_says_so(full_app, small_store, redis_client):
    client = full_app.test_client()
    fill(small_store)
    response = post_run(client, path=TASK)
    assert response.status_code == 503 and response.headers["Retry-After"]
    page = response.get_data(as_text=True)
    assert "storage is full" in page and no_raw_text(page)
    assert slots_held(redis_client) == 0  # the slot it took was given back
    ready = client.get("/readyz")
    assert ready.status_code == 503
    store = ready.get_json()["checks"]["store"]
    assert store["ok"] is False and store["error"] == "The store is not writable: its disk is full."
    for url in ("/community", "/preview/site.png", f"/preview/d/{PROBES}.png", TASK):  # no 500, whatever they say
        answer = client.get(url)
        assert answer.status_code < 500 or answer.status_code == 503, url
        assert answer.mimetype == "image/png" or no_raw_text(answer.get_data(as_text=True)), url


def test_a_run_whose_store_fills_up_ends_as_an_infrastructure_error_and_gives_its_slot_back(
        full_app, small_store, redis_client):
    client = full_app.test_client()
    run_id = run_id_of(post_run(client, path=TASK))
    assert slots_held(redis_client) == 1
    fill(small_store)
    worker = start_worker(full_app, redis_client)
    try:
        run = wait_for(full_app, run_id)
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "failed" and run.error_type == "InfrastructureError"
    assert run.outcome == STORE_FULL
    assert slots_held(redis_client) == 0
    page = client.get(f"/r/{run_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Infrastructure error: the server&#39;s storage is full" in html and no_raw_text(html)
    assert client.get(f"/api/runs/{run_id}").get_json()["outcome"] == STORE_FULL
    community = client.get("/community")
    assert community.status_code == 200 and no_raw_text(community.get_data(as_text=True))


def test_a_dead_redis_or_a_full_disk_reads_as_one_sentence_without_the_servers_paths():
    socket_error = redis_lib.exceptions.ConnectionError(
        "Error 2 connecting to unix socket: /srv/data/redis/redis.sock. No such file or directory.")
    assert failure_of(socket_error) == ("InfrastructureError", QUEUE_DOWN)
    assert failure_of(OSError(errno.ENOSPC, "No space left on device", "/srv/data/runs/x/run.json"))[1] == STORE_FULL
    # As RQ keeps a dead job's reason, and as Harbor keeps a trial's exception: text only.
    assert failure_from_text("redis.exceptions.ConnectionError", str(socket_error))[1] == QUEUE_DOWN
    assert failure_from_text("OSError", "[Errno 28] No space left on device: '/srv/x'")[1] == STORE_FULL
    error_type, sentence = failure_of(RuntimeError("copying /srv/data/cache/rlx-run-1/task failed"))
    assert sentence == "copying <path> failed"
