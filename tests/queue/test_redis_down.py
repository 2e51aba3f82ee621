"""Redis stopped under a running app: what needs the job queue answers 503 with Retry-After and a sentence (never a
500), what is already on disk keeps working, and everything answers again once Redis is back."""

from __future__ import annotations

import pytest

from rlx import create_app
from rlx.queue.embedded import EmbeddedRedis
from tests.conftest import index_now

NOT_INDEXED = ("rlx-examples/terminal-basics", "rlx-examples/science-puzzles")
INDEXED = "rlx-examples/python-bugfix"


@pytest.fixture
def own_redis(tmp_path):
    """A real redis-server of this test's own, which the test stops and starts."""
    server = EmbeddedRedis(tmp_path / "own-redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def app_on_own_redis(make_config, own_redis):
    app = create_app(make_config(REDIS_URL=own_redis.url))
    index_now(app, INDEXED)
    return app


def assert_queue_down(response, json: bool):
    assert response.status_code == 503
    assert int(response.headers["Retry-After"]) > 0
    if json:
        assert "job queue is not answering" in response.get_json()["error"]
    else:
        assert "job queue is not answering" in response.get_data(as_text=True)
        assert response.mimetype == "text/html"


def test_pages_that_would_queue_a_job_answer_503_while_redis_is_down(app_on_own_redis, own_redis):
    client = app_on_own_redis.test_client()
    assert client.get(f"/d/{NOT_INDEXED[0]}").status_code == 200  # the pool holds a live connection now

    own_redis.stop()

    assert_queue_down(client.get(f"/d/{NOT_INDEXED[1]}"), json=False)
    assert_queue_down(client.get(f"/d/{NOT_INDEXED[0]}"), json=False)
    assert_queue_down(client.get(f"/api/env/{NOT_INDEXED[1]}"), json=True)
    assert_queue_down(client.post(f"/d/{NOT_INDEXED[1]}/reindex", headers={"Origin": "http://localhost"}), json=False)
    # What is on disk needs no queue.
    assert client.get(f"/d/{INDEXED}").status_code == 200
    assert client.get(f"/t/{INDEXED}/parse-duration").status_code == 200

    own_redis.start()

    assert client.get(f"/d/{NOT_INDEXED[1]}").status_code == 200
    assert client.get(f"/api/env/{NOT_INDEXED[1]}").get_json()["state"] == "indexing"
