"""A gunicorn worker of `rlx serve` opens the catalog snapshot while it boots, and follows a new pointer on its
own: no visitor's request waits while a database is copied out of the store, hashed and checked."""

from __future__ import annotations

import json
import urllib.request

import pytest

from rlx.store import Store
from tests.processes import free_port, wait_or_fail
from tests.servers import gunicorn
from tests.snapshot.test_snapshot import publish_catalog


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def copies(cache) -> set[str]:
    """The snapshot databases worker processes have copied to local disk (their names, without the pid prefix)."""
    folder = cache / "snapshots"
    return {path.name.split("-", 2)[2] for path in folder.glob("*-*-catalog-*.db")} if folder.is_dir() else set()


@pytest.fixture
def published(tmp_path):
    store = Store(tmp_path / "data")
    return store, publish_catalog(store, tmp_path, generation=0, envs=3)


@pytest.fixture
def served(published, redis_url, tmp_path):
    store, _ = published
    cache = tmp_path / "cache"
    env = {"REDIS_URL": redis_url, "STORAGE_DIR": str(store.root), "RLX_CACHE_DIR": str(cache),
           "SESSION_SECRET": "test-secret", "RLX_SNAPSHOT_CHECK_S": "1",
           "RLX_SOURCE": "hub", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}  # nothing listens: no listing
    with gunicorn(env, quiet=True) as url:  # ready once /healthz answers, which reads no catalog
        yield url, cache


def test_a_new_worker_has_its_snapshot_copied_and_checked_before_its_first_catalog_request(served, published):
    url, cache = served
    _, first = published

    assert copies(cache) == {first["db"]}  # the worker answered /healthz: it booted, and the copy was already there
    assert get(url + "/api/search?size=50")["total"] == 3
    assert get(url + "/api/search/status")["snapshot"] == first["db"]


def test_a_new_pointer_is_followed_without_a_request_to_trigger_it(served, published, tmp_path):
    url, cache = served
    store, first = published

    second = publish_catalog(store, tmp_path, generation=1, envs=5)

    wait_or_fail(lambda: copies(cache) == {second["db"]}, "the worker to swap in the new snapshot on its own")
    assert get(url + "/api/search?size=50")["total"] == 5
    assert get(url + "/api/search/status")["snapshot"] == second["db"]


def test_a_worker_that_booted_before_the_first_publish_serves_it_once_published(redis_url, tmp_path):
    """A first `rlx demo`/`rlx serve`: the web is up before the indexer's first snapshot. That snapshot shows
    without a restart."""
    store = Store(tmp_path / "data")
    cache = tmp_path / "cache"
    env = {"REDIS_URL": redis_url, "STORAGE_DIR": str(store.root), "RLX_CACHE_DIR": str(cache),
           "SESSION_SECRET": "test-secret", "RLX_SNAPSHOT_CHECK_S": "1",
           "RLX_SOURCE": "hub", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    with gunicorn(env, quiet=True) as url:
        assert not str(get(url + "/api/search/status")["snapshot"]).startswith("catalog-")  # nothing published yet

        first = publish_catalog(store, tmp_path, generation=0, envs=3)

        wait_or_fail(lambda: get(url + "/api/search/status")["snapshot"] == first["db"],
                   "the worker to swap in the first published snapshot on its own")
        assert get(url + "/api/search?size=50")["total"] == 3
