"""A pointer gone bad at start-up, with the Hub unreachable: every gunicorn worker (real processes) serves the same
snapshot, the newest on disk that verifies, and says why the pointer was not followed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from rlx.snapshot import pointer_name
from rlx.store import Store
from tests.processes import free_port
from tests.servers import gunicorn
from tests.snapshot.test_snapshot import publish_catalog

WORKERS = 3


def get(url: str) -> tuple[int, dict | str]:
    """One request on its own connection (so the kernel hands it to any worker)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        status, body = err.code, err.read().decode()
    return status, (json.loads(body) if body.startswith("{") else body)


@pytest.fixture
def bad_pointer_store(tmp_path):
    """Three snapshots published, the newest then truncated, and garbage written over the pointer."""
    store = Store(tmp_path / "data")
    published = [publish_catalog(store, tmp_path, generation=g, envs=3 + g) for g in range(3)]
    newest = store.snapshots_dir / published[2]["db"]
    newest.write_bytes(newest.read_bytes()[:4096])
    (store.snapshots_dir / pointer_name()).write_bytes(b"\x00garbage left by a full disk")
    return store, published


@pytest.fixture
def served(bad_pointer_store, redis_url):
    store, _ = bad_pointer_store
    env = {"REDIS_URL": redis_url, "STORAGE_DIR": str(store.root), "SESSION_SECRET": "test-secret",
           "RLX_SOURCE": "hub", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}  # nothing listens: no listing
    with gunicorn(env, workers=WORKERS, quiet=True) as url:
        yield url


def test_every_worker_serves_the_newest_snapshot_on_disk_that_verifies(served, bad_pointer_store):
    _, published = bad_pointer_store
    expected = published[1]  # the newest whole one: generation 2 was truncated

    answers = [get(served + "/api/search/status") for _ in range(4 * WORKERS)]

    assert {status for status, _ in answers} == {200}
    assert {body["snapshot"] for _, body in answers} == {expected["db"]}
    assert {body["origin"] for _, body in answers} == {"disk"}
    assert all("not JSON" in body["pointer_problem"]["reason"] for _, body in answers)
    for _ in range(2 * WORKERS):
        status, body = get(served + "/api/search?size=50")
        assert status == 200 and body["total"] == expected["counts"]["envs"] == 4
        status, page = get(served + "/")
        assert status == 200 and "generation 1" in page
    _, ready = get(served + "/readyz")
    assert ready["checks"]["snapshot"]["ok"] is True
    assert "not JSON" in ready["checks"]["snapshot"]["pointer_problem"]["reason"]
