"""A run inherits its dataset's visibility: a run on a private or gated dataset is private whatever the form
posts, the form offers nothing else, and another account and an anonymous visitor never read it."""

from __future__ import annotations

import re

import pytest

from rlx import create_app
from rlx.runs import record
from tests.stand_ins.hub_fixtures import ALICE, BOB, GATED_HARBOR, PRIVATE_HARBOR, PUBLIC_HARBOR

ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture
def hub_app(make_config, redis_client, hub):
    return create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))


def signed_in(app, token):
    client = app.test_client()
    assert client.post("/signin/token", data={"token": token}, headers=ORIGIN).status_code == 303
    return client


def first_task(client, repo_id) -> str:
    page = client.get(f"/d/{repo_id}").get_data(as_text=True)  # a private one is indexed for this visitor now
    refs = re.findall(rf'href="/t/{re.escape(repo_id)}/([^"?#]+)"', page)
    assert refs, page[:400]
    return refs[0]


def start(client, repo_id, ref, visibility="public"):
    form = {"option": "local", "agent": "nop", "visibility": visibility, "model": "", "endpoint": "", "api_key": ""}
    response = client.post(f"/t/{repo_id}/{ref}/run", data=form, headers=ORIGIN)
    assert response.status_code == 303, response.get_data(as_text=True)[:400]
    return response.headers["Location"].rsplit("/", 1)[1]


@pytest.mark.parametrize("repo_id", [PRIVATE_HARBOR, GATED_HARBOR])
def test_a_run_on_a_private_or_gated_dataset_is_private_whatever_the_form_posts(hub_app, repo_id):
    alice = signed_in(hub_app, ALICE)
    ref = first_task(alice, repo_id)
    task_page = alice.get(f"/t/{repo_id}/{ref}").get_data(as_text=True)
    assert '<option value="public"' not in task_page  # the form does not offer it
    run_id = start(alice, repo_id, ref, visibility="public")  # a forged form asks for it anyway
    with hub_app.app_context():
        assert record.load(hub_app.extensions["rlx.store"], run_id).visibility == "private"
    assert alice.get(f"/r/{run_id}").status_code == 200 and alice.get(f"/api/runs/{run_id}").status_code == 200
    for other in (signed_in(hub_app, BOB), hub_app.test_client()):
        for path in (f"/r/{run_id}", f"/api/runs/{run_id}", f"/r/{run_id}/events", f"/compare?runs={run_id}"):
            response = other.get(path)
            assert response.status_code == 404, (path, response.status_code)
            assert repo_id not in response.get_data(as_text=True) and ref not in response.get_data(as_text=True)


def test_a_run_on_a_public_dataset_keeps_the_visitors_choice(hub_app):
    from tests.conftest import index_now

    index_now(hub_app, PUBLIC_HARBOR)  # what the indexing job does for a public dataset
    alice = signed_in(hub_app, ALICE)
    ref = first_task(alice, PUBLIC_HARBOR)
    assert '<option value="public"' in alice.get(f"/t/{PUBLIC_HARBOR}/{ref}").get_data(as_text=True)
    run_id = start(alice, PUBLIC_HARBOR, ref, visibility="public")
    assert hub_app.test_client().get(f"/api/runs/{run_id}").status_code == 200
