"""A gunicorn worker of `rlx serve` freezes what it loaded while booting, so a full garbage collection during a
request walks only the objects made since, not the whole app (a gen-2 pause of 65 to 190 ms at 10x the catalog
before: rlx/web/gevent_worker.py)."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from rlx.store import Store
from tests.processes import free_port
from tests.servers import gunicorn
from tests.snapshot.test_snapshot import publish_catalog

# A bare interpreter tracks about 6,000 objects; one with the app imported and its snapshot open, about 100,000.
APP_LOADED = 30_000


def scrape(url: str) -> dict[tuple, float]:
    with urllib.request.urlopen(url + "/metrics", timeout=60) as response:
        text = response.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_a_served_worker_keeps_the_app_it_booted_out_of_its_collections(redis_url, tmp_path):
    store = Store(tmp_path / "data")
    publish_catalog(store, tmp_path, generation=0, envs=3)
    env = {"REDIS_URL": redis_url, "STORAGE_DIR": str(store.root), "RLX_CACHE_DIR": str(tmp_path / "cache"),
           "SESSION_SECRET": "test-secret", "RLX_SOURCE": "hub",
           "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}  # nothing listens: no listing
    with gunicorn(env, quiet=True) as url:
        for _ in range(3):
            urllib.request.urlopen(url + "/api/search", timeout=60).read()
        samples = scrape(url)

    assert samples[("rlx_gc_frozen_objects", ())] > APP_LOADED
    assert samples[("rlx_scrape_ok", (("part", "heap"),))] == 1
