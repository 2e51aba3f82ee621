"""Private stays private, per token: a signed-in visitor sees their own repositories (private ones included) as
private answers, every private or gated page re-checks access with the visitor's token, and nothing one visitor's
token unlocked is served to another visitor or put in the catalog."""

from __future__ import annotations

import pytest

from rlx import create_app
from tests.stand_ins.hub_fixtures import ALICE, BOB, GATED_HARBOR, PRIVATE_HARBOR, harbor_dataset

MINE_PRIVATE = "alice/secret-gym"
MINE_PUBLIC = "alice/open-gym"

ORIGIN = {"Origin": "http://localhost"}  # a form posted from our own page


@pytest.fixture
def hub_app(make_config, redis_client, hub):
    hub.add_repo("dataset", MINE_PRIVATE, harbor_dataset("Secret gym", tasks=("s1",)), {"private": True})
    hub.add_repo("dataset", MINE_PUBLIC, harbor_dataset("Alice's open gym", tasks=("o1",)))
    hub.add_repo("space", "alice/private-space", {"README.md": "---\nsdk: docker\n---\n"}, {"private": True})
    return create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))


def signed_in(app, token):
    client = app.test_client()
    assert client.post("/signin/token", data={"token": token}, headers=ORIGIN).status_code == 303
    return client


def test_my_repositories_private_ones_included_come_as_a_private_answer(hub_app):
    response = signed_in(hub_app, ALICE).get("/api/search?mine=1")
    assert response.status_code == 200
    mine = {card["key"]: card for card in response.json["mine"]}
    assert set(mine) == {MINE_PRIVATE, MINE_PUBLIC, "space:alice/private-space"}
    assert mine[MINE_PRIVATE]["private"] and not mine[MINE_PUBLIC]["private"]
    assert "private" in response.headers["Cache-Control"] and "public" not in response.headers["Cache-Control"]
    assert "Cookie" in response.headers["Vary"]


def test_another_visitor_and_an_anonymous_one_never_get_my_list(hub_app):
    signed_in(hub_app, ALICE).get("/api/search?mine=1")  # alice's list is now known to this process
    bob = signed_in(hub_app, BOB).get("/api/search?mine=1")
    assert bob.status_code == 200 and MINE_PRIVATE not in str(bob.json)
    anonymous = hub_app.test_client().get("/api/search?mine=1")
    assert anonymous.status_code == 401 and MINE_PRIVATE not in anonymous.text


def test_the_home_page_shows_mine_to_me_alone_and_is_never_publicly_cacheable(hub_app):
    alice = signed_in(hub_app, ALICE).get("/")
    assert alice.status_code == 200 and MINE_PRIVATE in alice.text and ">private<" in alice.text
    assert alice.headers["Cache-Control"] == "private, no-store"
    bob = signed_in(hub_app, BOB).get("/")
    anonymous = hub_app.test_client().get("/")
    for page in (bob, anonymous):
        assert page.status_code == 200 and MINE_PRIVATE not in page.text
    assert "Cookie" in anonymous.headers["Vary"]


def test_the_catalog_never_holds_what_a_token_unlocked(hub_app):
    signed_in(hub_app, ALICE).get("/")  # the catalog may be built while alice is signed in
    for client in (signed_in(hub_app, ALICE), hub_app.test_client()):
        body = client.get("/api/search?q=gym").text + client.get("/api/search?q=private").text
        assert MINE_PRIVATE not in body and PRIVATE_HARBOR not in body


@pytest.mark.parametrize("repo_id", [PRIVATE_HARBOR, GATED_HARBOR, MINE_PRIVATE])
def test_every_request_for_a_private_or_gated_repository_rechecks_with_the_visitors_token(hub_app, hub, repo_id):
    alice = signed_in(hub_app, ALICE)
    org, name = repo_id.split("/")
    assert alice.get(f"/d/{org}/{name}").status_code != 404  # granted to alice (the page may be indexing)
    bob, anonymous = signed_in(hub_app, BOB), hub_app.test_client()
    hub.reset_log()
    for client in (bob, anonymous):
        response = client.get(f"/d/{org}/{name}")
        if repo_id == GATED_HARBOR:  # a gated repository is listed publicly; its files are not
            assert f"/t/{repo_id}/" not in response.text  # no task of it is shown
        else:
            assert response.status_code == 404, (repo_id, response.status_code)
            assert "Secret gym" not in response.text and "secret-task" not in response.text
    # each visitor's request asked the Hub with that visitor's own token (or none), never alice's
    assert ALICE not in hub.request_tokens


def test_my_private_dataset_is_indexed_for_me_alone_on_a_shelf_the_catalog_never_reads(hub_app, tmp_path):
    alice = signed_in(hub_app, ALICE)
    page = alice.get("/d/alice/secret-gym")
    assert page.status_code == 200 and "/t/alice/secret-gym/" in page.text  # its task is listed for alice
    assert alice.get("/api/env/alice/secret-gym").json["state"] == "ready"
    data = tmp_path / "data"
    shelved = [p for p in (data / "visitors").rglob("*.json.gz")]
    assert shelved and not list((data / "indexes").glob("alice+secret-gym*"))
    for path in data.rglob("*"):
        if path.is_file():
            assert ALICE.encode() not in path.read_bytes(), path
    for client in (signed_in(hub_app, BOB), hub_app.test_client()):
        assert client.get("/d/alice/secret-gym").status_code == 404
        assert client.get("/t/alice/secret-gym/tasks/s1").status_code == 404
    from rlx.snapshot.row_sources import StoredIndexes

    assert "alice/secret-gym" not in list(StoredIndexes(hub_app.extensions["rlx.store"]))
