"""The admin app's headers: the explorer's strict policy on its own pages, and on the RQ dashboard's pages a policy
that lets the dashboard work (checked in real Chromium: its tables fill and no policy is violated) while allowing
no inline script but the page's own, by hash."""

from __future__ import annotations

import pytest

from rlx.admin.security_headers import inline_script_hashes
from tests.admin.test_admin import CAROL, ORIGIN, apps, people, signed_in  # noqa: F401 (fixtures)
from tests.processes import config_env
from tests.servers import browser_page, gunicorn, needs_chromium


def policy(response) -> dict[str, str]:
    parts = (p.strip().split(" ", 1) for p in response.headers["Content-Security-Policy"].split(";") if p.strip())
    return {p[0]: p[1] if len(p) > 1 else "" for p in parts}


def test_admin_pages_keep_the_strict_policy_and_the_dashboard_gets_its_own(apps):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    for url in ("/admin/", "/admin/rollouts", "/admin/settings", "/admin/nothing-here"):
        strict = policy(carol.get(url))
        assert "'unsafe-eval'" not in strict["script-src"] and "sha256-" not in strict["script-src"], url
        assert "'nonce-" in strict["script-src"] and strict["frame-ancestors"] == "'none'", url
    dashboard = carol.get("/admin/rq/")
    assert dashboard.status_code == 200
    rq = policy(dashboard)
    hashes = inline_script_hashes(dashboard.text)
    assert len(hashes) == 1  # the dashboard's one inline script; its row templates are not scripts
    assert rq["script-src"].split() == ["'self'", "'unsafe-eval'", *hashes]
    assert "'unsafe-inline'" not in rq["script-src"] and rq["object-src"] == "'none'"
    assert rq["frame-ancestors"] == "'none'" and rq["connect-src"] == "'self'"
    assert dashboard.headers["X-Frame-Options"] == "DENY"
    data = carol.get("/admin/rq/0/data/queues.json")
    assert data.is_json and "'unsafe-eval'" not in policy(data)["script-src"]


def test_the_hash_covers_exactly_the_inline_scripts_a_browser_runs():
    html = ('<script src="/a.js"></script><script>run(1)</script><script type="text/template">x</script>'
            '<script type="text/javascript">run(2)</script><SCRIPT type=module>run(3)</SCRIPT>')
    import base64
    import hashlib

    def sha(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert inline_script_hashes(html) == [sha("run(1)"), sha("run(2)"), sha("run(3)")]


def test_the_dashboards_changes_need_a_post_from_the_admins_own_pages(apps):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    assert carol.get("/admin/rq/requeue/index").status_code == 405  # a link on any site could send a GET
    assert carol.post("/admin/rq/requeue/index").status_code == 403  # no Origin: refused
    assert carol.post("/admin/rq/requeue/index", headers={"Origin": "https://evil.example"}).status_code == 403
    assert carol.post("/admin/rq/requeue/index", headers=ORIGIN).status_code == 200


def test_the_admin_refuses_foreign_hosts_and_big_bodies(apps):
    _, admin = apps
    carol = signed_in(admin, CAROL)
    assert carol.get("/admin/", headers={"Host": "evil.example"}).status_code == 400
    big = carol.post("/admin/banner", data="text=" + "a" * (2 * 1024 * 1024), headers=ORIGIN,
                     content_type="application/x-www-form-urlencoded")
    assert big.status_code == 413


EXPLORER_URL, ADMIN_URL = "https://explorer.example.org", "https://admin.example.org"


@pytest.fixture
def admin_apart(make_config, redis_client, people):
    """The admin served on an origin of its own (RLX_ADMIN_URL), as on a second Space."""
    from rlx.admin import create_admin_app

    return create_admin_app(make_config(HF_ENDPOINT=people.url, ADMIN_ORG="rlx-admins", RLX_PUBLIC_URL=EXPLORER_URL,
                                        RLX_ADMIN_URL=ADMIN_URL))


def test_an_admin_served_apart_takes_writes_from_its_own_origin_only(admin_apart):
    carol = admin_apart.test_client()
    own = {"Origin": ADMIN_URL}
    signin = carol.post("/signin/token", data={"token": CAROL}, headers=own, base_url=ADMIN_URL)
    assert signin.status_code == 303
    banner = {"text": "Office hours on Friday", "id": "fri"}
    assert carol.post("/admin/banner", data=banner, headers={"Origin": EXPLORER_URL},
                      base_url=ADMIN_URL).status_code == 403  # the explorer's pages are another site to it
    assert carol.post("/admin/banner", data=banner, headers={"Referer": f"{EXPLORER_URL}/admin/"},
                      base_url=ADMIN_URL).status_code == 403
    assert carol.post("/admin/banner", data=banner, headers=own, base_url=ADMIN_URL).status_code == 303
    assert carol.get("/admin/settings", base_url=ADMIN_URL).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "explorer.example.org", "admin.example.org.evil.example"])
def test_an_admin_served_apart_refuses_any_other_host(admin_apart, host):
    response = admin_apart.test_client().post("/signin/token", data={"token": CAROL},
                                              headers={"Origin": ADMIN_URL, "Host": host})
    assert response.status_code == 400


def test_the_admin_sends_hsts_on_its_own_https_origin_and_not_on_plain_http(admin_apart, apps):
    served_apart = admin_apart.test_client().get("/admin/", base_url=ADMIN_URL)
    assert "max-age=" in served_apart.headers["Strict-Transport-Security"]
    _, local = apps  # no public URL: a developer's plain http
    plain = local.test_client().get("/admin/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in plain.headers


@pytest.fixture
def admin_server(make_config, redis_url, redis_client, people):
    from rq import Queue

    Queue("index", connection=redis_client).enqueue("builtins.print", "waiting for a worker")  # a job to list
    config = make_config(HF_ENDPOINT=people.url, ADMIN_ORG="rlx-admins")
    env = config_env(config, redis_url, HF_ENDPOINT=people.url, ADMIN_ORG="rlx-admins")
    with gunicorn(env, app="admin_wsgi:app", ready="/signin") as url:
        yield url


@needs_chromium
def test_the_rq_dashboard_works_in_chromium_without_a_policy_violation(admin_server):
    for page in browser_page(width=1280):
        problems = []
        page.on("console", lambda m: problems.append(f"{m.text} {m.location}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(admin_server + "/signin?next=/admin/")
        page.fill("#hf-token", CAROL)
        page.click("button[type=submit]")
        page.wait_for_url("**/admin/")
        page.evaluate("window.violations = []")
        drawn = "tbody tr:not([data-role=loading-placeholder])"  # rows the dashboard's own script drew
        for path, filled in (("/admin/rq/", "#queues tr[data-role=queue]"), ("/admin/rq/0/view/workers",
                             f"#workers {drawn}"), ("/admin/rq/0/view/jobs/index/queued/8/asc/1", "#jobs tr[data-role=job]")):
            page.goto(admin_server + path)
            page.wait_for_selector(filled, timeout=15_000)
        page.goto(admin_server + "/admin/rollouts")
        assert page.locator("h1").inner_text() == "Rollouts"
        assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
        # Neither app ships a favicon (the dashboard's template asks for one in our static folder): not a fault
        assert not [p for p in problems if "favicon.ico" not in p], problems
