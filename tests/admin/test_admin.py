"""The admin app: a separate app for members of ADMIN_ORG only (asked of the Hub on every request), whose changes
the explorer applies within seconds, with an audit line for each."""

from __future__ import annotations

import json
import os

import pytest
from werkzeug.exceptions import MethodNotAllowed, NotFound

from rlx import create_app
from rlx.admin import create_admin_app
from tests.processes import wait_or_fail

ORG = "rlx-admins"
CAROL = "hf_carol"  # a member of ORG
DAVE = "hf_dave"  # signed in, not a member
ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture
def people(hub):
    hub.add_token(CAROL, "carol", orgs=(ORG, "other-org"))
    hub.add_token(DAVE, "dave", orgs=("other-org",))
    return hub


@pytest.fixture
def apps(make_config, redis_client, people):
    """The explorer and the admin on one STORAGE_DIR, as `rlx serve` and `rlx admin` run them."""
    public = create_app(make_config(HF_ENDPOINT=people.url))
    admin = create_admin_app(make_config(HF_ENDPOINT=people.url, ADMIN_ORG=ORG))
    return public, admin


def signed_in(app, token):
    client = app.test_client()
    assert client.post("/signin/token", data={"token": token}, headers=ORIGIN).status_code == 303
    return client


def admin_pages(admin) -> list[str]:
    return sorted(rule.rule for rule in admin.url_map.iter_rules()
                  if "GET" in rule.methods and not rule.arguments - set(rule.defaults or {})
                  and rule.rule.startswith("/admin") and "favicon" not in rule.rule)


def test_the_public_app_has_no_admin_route(apps):
    public, admin = apps
    bound = public.url_map.bind("localhost")
    admin_only = [rule for rule in admin.url_map.iter_rules()
                  if not rule.endpoint.startswith(("auth.", "static", "to_admin"))]
    assert len(admin_only) > 10  # the admin pages, its edits and the RQ dashboard
    for rule in admin_only:
        path = rule.rule.replace("<int:instance_number>", "0").replace("<", "").replace(">", "")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            with pytest.raises((NotFound, MethodNotAllowed)):
                bound.match(path, method=method)
        assert rule.endpoint not in public.view_functions
    assert not any(r.rule.startswith("/admin") for r in public.url_map.iter_rules())
    assert public.test_client().get("/admin/").status_code == 404


def test_nobody_signed_in_is_sent_to_sign_in_and_a_non_member_is_refused_everywhere(apps):
    _, admin = apps
    anonymous = admin.test_client()
    response = anonymous.get("/admin/settings")
    assert response.status_code == 303 and response.headers["Location"].startswith("/signin?next=/admin/settings")
    dave = signed_in(admin, DAVE)
    for page in admin_pages(admin):
        assert dave.get(page).status_code == 403, page
    settings_path = admin.extensions["rlx.store"].settings_path
    response = dave.post("/admin/environments", data={"env": "harbor/hello", "action": "hide"}, headers=ORIGIN)
    assert response.status_code == 403 and not settings_path.exists()


def test_a_member_sees_every_page_including_the_rq_dashboard(apps):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    pages = admin_pages(admin)
    assert "/admin/rq/" in pages
    for page in pages:
        response = carol.get(page)
        assert response.status_code == 200, (page, response.status_code)
    assert "carol" in carol.get("/admin/").text


def test_membership_is_asked_of_the_hub_on_every_request(apps, people):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    assert carol.get("/admin/audit").status_code == 200
    people.tokens[CAROL].orgs = ("other-org",)  # carol leaves the org; her cookie still lists it
    assert carol.get("/admin/audit").status_code == 403
    assert carol.get("/admin/rq/").status_code == 403
    people.tokens[CAROL].orgs = (ORG,)
    people.fail(503, times=1, path_contains="whoami-v2")
    response = carol.get("/admin/audit")
    assert response.status_code == 503 and response.headers["Retry-After"]


def test_without_admin_org_the_admin_lets_nobody_in(make_config, redis_client, people):
    admin = create_admin_app(make_config(HF_ENDPOINT=people.url))
    assert signed_in(admin, CAROL).get("/admin/").status_code == 403


def test_hiding_pinning_and_the_banner_show_in_the_explorer_within_seconds(apps):
    public, admin = apps
    carol = signed_in(admin, CAROL)
    explorer = public.test_client()
    listed = [card["id"] for card in explorer.get("/api/search?size=50").json["cards"]]
    assert len(listed) >= 3
    hidden, pinned = listed[0], listed[-1]

    assert carol.post("/admin/environments", data={"env": hidden, "action": "hide"},
                      headers=ORIGIN).status_code == 303
    assert carol.post("/admin/environments", data={"env": pinned, "action": "pin"},
                      headers=ORIGIN).status_code == 303
    assert carol.post("/admin/banner", data={"text": "Office hours on Friday", "id": "fri"},
                      headers=ORIGIN).status_code == 303

    def applied():
        cards = [card["id"] for card in explorer.get("/api/search?size=50&trending=5").json["cards"]]
        return hidden not in cards and cards[:1] == [pinned]

    wait_or_fail(applied, "the settings to apply", 10)
    wait_or_fail(lambda: "Office hours on Friday" in explorer.get("/").text, "the banner on the explorer", 10)

    assert carol.post("/admin/environments", data={"env": hidden, "action": "unhide"},
                      headers=ORIGIN).status_code == 303
    wait_or_fail(lambda: hidden in [c["id"] for c in explorer.get("/api/search?size=50").json["cards"]],
                 "the environment back in search", 10)


def test_each_change_leaves_an_audit_line_naming_who_made_it(apps):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    carol.post("/admin/collections", data={"key": "starter", "title": "Start here", "items": "a/b\nspace:c/d"},
               headers=ORIGIN)
    carol.post("/admin/settings", data={"per_visitor_per_hour": "3", "agents": "terminus-2"}, headers=ORIGIN)
    path = admin.extensions["rlx.store"].settings_path
    lines = [json.loads(line) for line in (path.parent / "audit.jsonl").read_text().splitlines()]
    assert [(e["who"], e["action"]) for e in lines] == [("carol", "collection.save"), ("carol", "settings.save")]
    stored = json.loads(path.read_text())
    assert stored["collections"]["starter"] == {"title": "Start here", "items": ["a/b", "space:c/d"]}
    assert stored["rollouts"] == {"enabled": False, "per_visitor_per_hour": 3, "agents": ["terminus-2"],
                                  "judges": []}  # none named: the default pool
    page = carol.get("/admin/audit").text
    assert "collection.save" in page and "settings.save" in page
    assert CAROL not in page and CAROL not in (path.parent / "audit.jsonl").read_text()


@pytest.mark.parametrize("route, form", [
    ("/admin/environments", {"env": "../../etc/passwd", "action": "hide"}),
    ("/admin/environments", {"env": "a/b", "action": "explode"}),
    ("/admin/collections", {"key": "Bad Key!", "items": "a/b"}),
    ("/admin/collections", {"key": "ok", "items": "not an id"}),
    ("/admin/banner", {"text": "x", "href": "javascript:alert(1)"}),
    ("/admin/banner", {"text": ""}),
    ("/admin/settings", {"per_visitor_per_hour": "99999999999999999999"}),
    ("/admin/settings", {"per_visitor_per_hour": "-1"}),
    ("/admin/settings", {"per_visitor_per_hour": "2", "agents": "<script>"}),
])
def test_bad_input_is_a_400_with_a_sentence_and_changes_nothing(apps, route, form):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    response = carol.post(route, data=form, headers=ORIGIN)
    assert response.status_code == 400
    assert "<script>" not in response.text
    path = admin.extensions["rlx.store"].settings_path
    assert not path.exists() and not (path.parent / "audit.jsonl").exists()


def test_two_saves_within_one_clock_tick_are_both_seen(apps):
    """Two edits of the same size inside the file system's timestamp granularity: the second still shows."""
    public, admin = apps
    carol, explorer = signed_in(admin, CAROL), public.test_client()
    carol.post("/admin/banner", data={"text": "Banner AAAA", "id": "one"}, headers=ORIGIN)
    wait_or_fail(lambda: "Banner AAAA" in explorer.get("/").text, "banner AAAA on the explorer", 10)
    path = admin.extensions["rlx.store"].settings_path
    first = path.stat()
    carol.post("/admin/banner", data={"text": "Banner BBBB", "id": "one"}, headers=ORIGIN)
    assert path.stat().st_size == first.st_size
    os.utime(path, ns=(first.st_atime_ns, first.st_mtime_ns))  # as if saved in the same tick
    wait_or_fail(lambda: "Banner BBBB" in explorer.get("/").text, "banner BBBB on the explorer", 3)
