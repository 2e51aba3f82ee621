"""The Hub failing while the app reads it: indexing fails whole (never a dataset of empty tasks called ready), and
pages already indexed keep being served from disk, saying how old what they show is.

Real parts: the Hub stand-in over HTTP, a real Redis, a real `rlx worker` process running the indexing job.
"""

from __future__ import annotations

import os

import pytest

from rlx import create_app
from rlx.adapters.indexes import read_index
from tests.conftest import index_now
from tests.processes import config_env, start_worker, wait_until
from tests.stand_ins.hub_fixtures import PUBLIC_HARBOR, TASK_NAMES

ENV_URL = f"/d/{PUBLIC_HARBOR}"


@pytest.fixture
def hub_config(make_config, hub):
    return make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url)


@pytest.fixture
def hub_app(hub_config, redis_client):
    return create_app(hub_config)


@pytest.fixture
def hub_worker(hub_config, redis_url, redis_client):
    """A real `rlx worker` process reading the Hub stand-in."""
    env = config_env(hub_config, redis_url, HF_ENDPOINT=hub_config.hf_endpoint)
    process, _ = start_worker({**os.environ, **env}, redis_client)
    yield process
    process.terminate()
    process.wait(15)


def settled_state(client) -> str | None:
    state = client.get(f"/api/env/{PUBLIC_HARBOR}").get_json()["state"]
    return state if state in ("ready", "failed") else None


# -- indexing while the Hub fails ---------------------------------------------------------------------------------


def test_a_hub_answering_520_on_files_fails_the_indexing_instead_of_publishing_empty_tasks(hub, hub_app, hub_worker):
    client = hub_app.test_client()
    hub.fail(520, times=100_000, path_contains="/resolve/")

    client.get(ENV_URL)
    state = wait_until(lambda: settled_state(client), timeout=90)

    assert state == "failed"
    body = client.get(f"/api/env/{PUBLIC_HARBOR}").get_json()
    assert "520" in body["progress"]["message"] and PUBLIC_HARBOR in body["progress"]["message"]
    page = client.get(ENV_URL).get_data(as_text=True)
    assert "Indexing failed" in page and "The Hub answered 520" in page
    assert "could not be read" not in page
    stored = read_index(hub_app.extensions["rlx.store"], PUBLIC_HARBOR)
    assert stored is None or not stored.complete  # nothing is published as a complete index

    hub.clear_faults()
    retried = client.post(f"{ENV_URL}/reindex", headers={"Origin": "http://localhost"})
    assert retried.status_code == 303
    assert wait_until(lambda: settled_state(client), timeout=90) == "ready"
    index = read_index(hub_app.extensions["rlx.store"], PUBLIC_HARBOR)
    assert sorted(r.ref for r in index.rows) == sorted(TASK_NAMES) and not any(r.error for r in index.rows)


def test_an_index_that_failed_on_an_outage_is_tried_again_by_the_next_visit_once_the_wait_is_over(hub, hub_app,
                                                                                                  hub_worker):
    client = hub_app.test_client()
    hub.fail(520, times=100_000, path_contains="/resolve/", retry_after=1)
    client.get(ENV_URL)
    assert wait_until(lambda: settled_state(client), timeout=90) == "failed"
    hub.clear_faults()

    # Plain visits, no Try again: those before the Hub's Retry-After (1 s) leave it failed, a later one retries.
    assert wait_until(lambda: settled_state(client) == "ready" or None, timeout=90)
    assert len(read_index(hub_app.extensions["rlx.store"], PUBLIC_HARBOR).rows) == len(TASK_NAMES)


def test_a_rebuild_that_fails_half_way_keeps_the_tasks_already_served(hub, hub_config, redis_client):
    from tests.stand_ins.hub_fixtures import harbor_dataset

    app = create_app(hub_config)
    first = index_now(app, PUBLIC_HARBOR)
    hub.add_repo("dataset", PUBLIC_HARBOR, harbor_dataset("Terminal tasks", tasks=(*TASK_NAMES, "new-task")))
    hub.fail(520, times=100_000, path_contains="/resolve/")  # the new revision's task list is read, its files not

    with pytest.raises(Exception):
        index_now(app, PUBLIC_HARBOR)

    kept = read_index(app.extensions["rlx.store"], PUBLIC_HARBOR)
    assert kept.complete and kept.revision == first.revision
    assert sorted(r.ref for r in kept.rows) == sorted(TASK_NAMES) and not any(r.error for r in kept.rows)
    hub.clear_faults()
    assert sorted(r.ref for r in index_now(app, PUBLIC_HARBOR).rows) == sorted((*TASK_NAMES, "new-task"))
    assert len(read_index(app.extensions["rlx.store"], PUBLIC_HARBOR).rows) == len(TASK_NAMES) + 1


# -- pages while the Hub is down ------------------------------------------------------------------------------------

HUB_DOWN = {
    "503": lambda hub: hub.fail(503, times=100_000, path_contains=f"/api/datasets/{PUBLIC_HARBOR}"),
    "slow": lambda hub: hub.slow(15, path_contains=f"/api/datasets/{PUBLIC_HARBOR}"),  # pages do not wait 15 s
}


@pytest.mark.parametrize("down", HUB_DOWN.values(), ids=HUB_DOWN.keys())
def test_pages_already_indexed_are_served_from_disk_while_the_hub_is_down(hub, hub_config, redis_client, down):
    index_now(create_app(hub_config), PUBLIC_HARBOR)
    down(hub)
    client = create_app(hub_config).test_client()  # a fresh process: no record of the dataset in memory

    env_page = client.get(ENV_URL)
    task_page = client.get(f"/t/{PUBLIC_HARBOR}/hello-world")
    task_json = client.get(f"/api/task/{PUBLIC_HARBOR}/hello-world")
    env_json = client.get(f"/api/env/{PUBLIC_HARBOR}")

    for page in (env_page, task_page):
        text = page.get_data(as_text=True)
        assert page.status_code == 200 and "Hub unreachable" in text and "showing the index built" in text
        assert page.headers["Cache-Control"] == "no-store"
    assert env_page.get_data(as_text=True).count('class="task-row') == len(TASK_NAMES)
    assert "Solve the task hello-world" in task_page.get_data(as_text=True)
    assert task_json.status_code == 200 and task_json.get_json()["stale"]["built_at"]
    assert env_json.get_json()["state"] == "ready" and env_json.get_json()["stale"]["reason"]

    hub.clear_faults()  # the Hub is back: pages catch up by themselves, without a restart
    assert wait_until(lambda: "stale" not in client.get(f"/api/env/{PUBLIC_HARBOR}").get_json(), timeout=30)
    assert "Hub unreachable" not in client.get(ENV_URL).get_data(as_text=True)


def test_a_dataset_the_hub_no_longer_shows_is_not_served_from_disk(hub, hub_config, redis_client):
    index_now(create_app(hub_config), PUBLIC_HARBOR)
    del hub.repos[("dataset", PUBLIC_HARBOR)]  # deleted, or made private

    client = create_app(hub_config).test_client()

    assert client.get(ENV_URL).status_code == 404
    assert client.get(f"/api/task/{PUBLIC_HARBOR}/hello-world").status_code == 404


def test_a_space_seen_once_is_served_from_its_last_record_while_the_hub_is_down(hub, hub_config, redis_client):
    """Spaces load through the same record loader as datasets: the last record known answers during an outage,
    and a Space never seen here gets the Hub's error."""
    from tests.stand_ins.hub_fixtures import OPENENV_SPACE

    app = create_app(hub_config)
    client = app.test_client()
    assert client.get(f"/s/{OPENENV_SPACE}").status_code == 200
    hub.fail(503, times=100_000, path_contains="/api/spaces/")
    cache = app.extensions["rlx.records"]["space"]
    cache.clock = lambda: 10_000_000.0  # every record is now older than FRESH_S: the Hub is asked again

    page = client.get(f"/s/{OPENENV_SPACE}")
    assert page.status_code == 200 and OPENENV_SPACE in page.get_data(as_text=True)
    assert create_app(hub_config).test_client().get(f"/s/{OPENENV_SPACE}").status_code == 503  # never seen there
