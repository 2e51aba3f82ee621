"""The caps on active runs and running batches count a person, not a cookie: anonymous visitors are counted by
their address (behind RLX_PROXY_HOPS), signed-in ones by their account, so fresh cookies buy nothing."""

from __future__ import annotations

import pytest

from rlx import create_app
from tests.runs.test_batches import batch_id_of, start_batch, twenty_app  # noqa: F401
from tests.runs.test_run_pages import post_run, run_id_of


def browser(app, **environ):
    """A fresh browser (no cookie yet), its requests carrying `environ` (an address, a proxy's header)."""
    client = app.test_client()
    client.environ_base.update(environ)
    return client


def test_fresh_cookies_from_one_address_get_no_more_active_runs_than_the_cap(indexed_app):
    indexed_app.config.update(RLX_MAX_RUNS_PER_VISITOR=2, RLX_MAX_ACTIVE_RUNS=8)
    for _ in range(2):
        run_id_of(post_run(indexed_app.test_client()))  # a fresh browser (no cookie) each time
    for _ in range(4):
        refused = post_run(indexed_app.test_client())
        assert refused.status_code == 429 and refused.headers["Retry-After"]
        assert "the limit per visitor" in refused.get_data(as_text=True)
    other = browser(indexed_app, REMOTE_ADDR="192.0.2.7")
    run_id_of(post_run(other))  # someone else, from another address, has their own


def test_fresh_cookies_from_one_address_get_no_more_running_batches_than_the_cap(twenty_app):  # noqa: F811
    for _ in range(2):
        batch_id_of(start_batch(twenty_app.test_client(), cap="1"))
    refused = start_batch(twenty_app.test_client(), cap="1")
    assert refused.status_code == 429 and "already have 2 batches running" in refused.get_data(as_text=True)
    other = browser(twenty_app, REMOTE_ADDR="192.0.2.7")
    assert batch_id_of(start_batch(other, cap="1"))


@pytest.fixture
def proxied_app(make_config, redis_client):
    from tests.conftest import HARBOR_EXAMPLES, index_now

    app = create_app(make_config(RLX_PROXY_HOPS="1"))
    index_now(app, HARBOR_EXAMPLES[2])
    app.config.update(RLX_MAX_RUNS_PER_VISITOR=1)
    return app


def test_behind_a_declared_proxy_the_clients_own_address_is_counted(proxied_app):
    def from_client(address):
        return browser(proxied_app, HTTP_X_FORWARDED_FOR=address)

    run_id_of(post_run(from_client("198.51.100.1")))
    assert post_run(from_client("198.51.100.1")).status_code == 429  # same person, new cookie
    run_id_of(post_run(from_client("198.51.100.2")))  # another client behind the same proxy
