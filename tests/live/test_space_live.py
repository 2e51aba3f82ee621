"""A Space page, live: what its real server offers, wake and restart through the Hub's own routes, the stage
change shown as it happens, and a clear sentence (never a 500) for every way a server can misbehave."""

from __future__ import annotations

import re

import pytest

from rlx import create_app
from rlx.live.runtime import RestartRefused, forget_runtime, restart
from tests.conftest import EXAMPLES
from tests.stand_ins.bad_space import BadSpace
from tests.stand_ins.hub_fixtures import ALICE, BOB

ECHO = "rlx-examples/echo-env"
OURS = {"Origin": "http://localhost"}  # our own pages send it with every form post


def hub_app(hub, make_config, hosts=""):
    return create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url, RLX_SPACE_HOSTS=hosts or None))


def add_space(hub, repo_id, stage, **meta):
    return hub.add_repo("space", repo_id, {"README.md": "---\ntitle: T\nsdk: docker\ntags: [openenv]\n---\n# T\n",
                                           "Dockerfile": "FROM python:3.12\n"},
                        {"runtime": {"stage": stage}, **meta})


def kind_line(html: str) -> str:
    """The heading's kind line as a visitor reads it (the element htmx swaps, with its out-of-band mark)."""
    found = re.search(r'<p class="card-kind" id="space-kind"( hx-swap-oob="true")?>(.*?)</p>', html, re.S)
    assert found, "no kind line"
    return ("oob: " if found.group(1) else "") + found.group(2).strip()


def test_a_running_openenv_space_shows_what_its_real_server_offers(hub, make_config, redis_client, openenv_server):
    hub.load_folder(EXAMPLES)
    hub.repos[("space", ECHO)].meta["runtime"] = {"stage": "RUNNING"}
    client = hub_app(hub, make_config, f"rlx-examples-echo-env={openenv_server}").test_client()
    page = client.get(f"/s/{ECHO}").get_data(as_text=True)
    assert kind_line(page) == "Space (declares OpenEnv)"  # being checked: neither claimed nor denied
    assert 'hx-get="/s/rlx-examples/echo-env/live"' in page
    live = client.get(f"/s/{ECHO}/live").get_data(as_text=True)
    assert kind_line(live) == "oob: OpenEnv Space"  # the heading follows the check that just passed
    assert "What the server offers" in live and "yes, checked" in live and "EchoEnvironment" in live
    assert "echo_message" in live and "Return the message unchanged." in live
    assert "Action schema" in live and "simulation" in live
    page = client.get(f"/s/{ECHO}").get_data(as_text=True)
    assert "OpenEnv Space" in page and "declares OpenEnv" not in page  # claimed after the fresh check
    assert 'hx-get="/s/rlx-examples/echo-env/live"' not in page  # fresh: not asked again
    body = client.get(f"/api/space/{ECHO}").get_json()
    assert body["verified_openenv"] and body["check"]["tools"][0]["name"] == "echo_message"


def test_with_js_off_check_now_runs_the_check_in_the_page(hub, make_config, redis_client, openenv_server):
    hub.load_folder(EXAMPLES)
    hub.repos[("space", ECHO)].meta["runtime"] = {"stage": "RUNNING"}
    client = hub_app(hub, make_config, f"rlx-examples-echo-env={openenv_server}").test_client()
    page = client.get(f"/s/{ECHO}?check=1").get_data(as_text=True)
    assert "echo_with_length" in page and "OpenEnv Space" in page


def test_a_sleeping_space_is_woken_as_its_hub_page_does_once_a_minute(hub, make_config, redis_client):
    add_space(hub, "acme/sleepy", "SLEEPING")
    host = hub.serve_space_host("acme/sleepy")
    app = hub_app(hub, make_config, f"acme-sleepy={host}")
    client = app.test_client()
    assert "Wake it up" in client.get("/s/acme/sleepy").get_data(as_text=True)
    woke = client.post("/s/acme/sleepy/wake", headers=OURS)
    assert woke.status_code == 303 and hub.space_visits["acme/sleepy"] == 1
    page = client.get(woke.headers["Location"]).get_data(as_text=True)
    assert "asked to wake up" in page and "Starting" in page
    assert '<meta http-equiv="refresh"' in page  # JS off: the page refreshes itself while it starts
    assert 'hx-trigger="every 3s"' in page  # JS on: the status polls
    again = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url,  # another process, same Redis
                                   RLX_SPACE_HOSTS=f"acme-sleepy={host}")).test_client().post("/s/acme/sleepy/wake",
                                                                                             headers=OURS)
    assert again.status_code == 429 and int(again.headers["Retry-After"]) <= 60
    assert "less than a minute ago" in again.get_data(as_text=True)
    assert hub.space_visits["acme/sleepy"] == 1  # throttled before any call


def test_the_page_shows_the_stage_change_live(hub, make_config, redis_client):
    add_space(hub, "acme/sleepy", "SLEEPING")
    host = hub.serve_space_host("acme/sleepy")
    client = hub_app(hub, make_config, f"acme-sleepy={host}").test_client()
    hub.start_polls = 4
    fragment = client.post("/s/acme/sleepy/wake", headers={"HX-Request": "true", "HX-Target": "space-status", **OURS})
    assert "was asked to wake up" in fragment.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)
    seen = []
    for _ in range(10):  # the Hub moves it to RUNNING after a few looks at its runtime
        forget_runtime(redis_client, "acme/sleepy")  # each poll asks the Hub (past the few-second shared cache)
        answer = client.get("/s/acme/sleepy/status?was=APP_STARTING")
        if answer.headers.get("HX-Refresh") == "true":
            break
        seen.append(answer.get_data(as_text=True))
    else:
        pytest.fail("the status never reported the Space running")
    assert "Starting" in seen[0]


def test_a_broken_space_asks_for_sign_in_to_restart(hub, make_config, redis_client):
    add_space(hub, "alice/broken-env", "RUNTIME_ERROR")
    client = hub_app(hub, make_config).test_client()
    page = client.get("/s/alice/broken-env").get_data(as_text=True)
    assert "Crashed" in page and "Sign in with Hugging Face to restart it" in page
    answer = client.post("/s/alice/broken-env/restart", headers=OURS)
    assert answer.status_code == 401 and "Sign in with Hugging Face" in answer.get_data(as_text=True)
    assert hub.restarts == []


def test_a_restart_uses_the_visitors_own_token_and_only_writers_may(hub, hub_source, make_config, redis_client,
                                                                     monkeypatch):
    add_space(hub, "alice/broken-env", "RUNTIME_ERROR")
    record = hub_source.repo_info("space", "alice/broken-env")
    with pytest.raises(RestartRefused, match="may not write") as refused:
        restart(redis_client, hub_source, record, BOB)
    assert refused.value.status == 403 and hub.restarts == []
    runtime = restart(redis_client, hub_source, record, ALICE)
    assert runtime.stage == "APP_STARTING" and hub.restarts == [("alice/broken-env", "alice")]
    # The page's route passes the visitor's token per call: with Bob's, the Hub's refusal is the answer.
    monkeypatch.setattr("rlx.web.spaces.pages.visitor_token", lambda: BOB)
    client = hub_app(hub, make_config).test_client()
    answer = client.post("/s/alice/broken-env/restart", headers=OURS)
    assert answer.status_code == 403 and "may not write to alice/broken-env" in answer.get_data(as_text=True)


def test_a_cross_site_wake_or_restart_is_refused(hub, make_config, redis_client):
    add_space(hub, "acme/sleepy", "SLEEPING")
    client = hub_app(hub, make_config).test_client()
    for action in ("wake", "restart"):
        answer = client.post(f"/s/acme/sleepy/{action}", headers={"Sec-Fetch-Site": "cross-site"})
        assert answer.status_code == 403


@pytest.mark.parametrize("mode, phrase", [
    ("5xx", "answered HTTP 503"),
    ("badjson", "not JSON"),
    ("huge", "sent more than 2 MB"),
    ("hang", "did not answer within"),
    ("redirect", "not followed"),
])
def test_a_misbehaving_server_gets_a_clear_message_on_the_page(hub, make_config, redis_client, monkeypatch, mode,
                                                                 phrase):
    monkeypatch.setattr("rlx.live.client.READ_TIMEOUT_S", 0.5)
    add_space(hub, "acme/bad-env", "RUNNING")
    with BadSpace(mode) as bad:
        client = hub_app(hub, make_config, f"acme-bad-env={bad.url}").test_client()
        live = client.get("/s/acme/bad-env/live")
        page = client.get("/s/acme/bad-env")
    assert live.status_code == 200 and page.status_code == 200
    assert phrase in live.get_data(as_text=True) and phrase in page.get_data(as_text=True)
    assert "OpenEnv Space" not in page.get_data(as_text=True)
    assert kind_line(live.get_data(as_text=True)) == "oob: Space (declares OpenEnv; not verified)"
    assert kind_line(page.get_data(as_text=True)) == "Space (declares OpenEnv; not verified)"


def test_a_harbor_server_shows_its_engine_sandboxes_agents_and_links_the_datasets_it_serves(
        hub, make_config, redis_client, harbor_server):
    add_space(hub, "acme/harbor-env", "RUNNING")
    client = hub_app(hub, make_config, f"acme-harbor-env={harbor_server}").test_client()
    live = client.get("/s/acme/harbor-env/live").get_data(as_text=True)
    assert "OpenEnv × Harbor" in live and "Qwen/Qwen3-8B" in live
    assert "docker" in live and "not usable: E2B_API_KEY is not set" in live
    assert "opencode" in live and "terminus-2" in live
    assert '<a href="/d/harbor-org/terminal-tasks">harbor-org/terminal-tasks</a>' in live
    assert "terminal-bench@2.0" in live and "80 tasks" in live  # a registry name: shown, not linked
    assert client.get("/d/harbor-org/terminal-tasks").status_code == 200  # the link opens the dataset


def test_a_catalog_card_says_openenv_only_after_a_fresh_check(make_config, redis_client, openenv_server):
    from rlx.live import check_space
    from rlx.sources.folder import FolderSource

    client = create_app(make_config(RLX_SPACE_HOSTS=f"rlx-examples-echo-env={openenv_server}")).test_client()
    card = next(c for c in client.get("/api/search").get_json()["cards"] if c["key"] == ECHO)
    assert card["kind_label"] == "Space · declares OpenEnv" and card["verified"] is False
    check_space(redis_client, FolderSource(EXAMPLES).repo_info("space", ECHO),
                (("rlx-examples-echo-env", openenv_server),))
    card = next(c for c in client.get("/api/search").get_json()["cards"] if c["key"] == ECHO)
    assert card["kind_label"] == "OpenEnv Space" and card["verified"] is True
    assert "Space · declares OpenEnv" not in client.get("/").get_data(as_text=True)


def test_a_page_view_rechecks_a_running_server_after_ten_minutes(hub, make_config, redis_client, openenv_server):
    import json
    import time

    hub.load_folder(EXAMPLES)
    hub.repos[("space", ECHO)].meta["runtime"] = {"stage": "RUNNING"}
    client = hub_app(hub, make_config, f"rlx-examples-echo-env={openenv_server}").test_client()
    client.get(f"/s/{ECHO}/live")
    key = f"rlx:live:check:{ECHO}"
    report = json.loads(redis_client.get(key))
    redis_client.set(key, json.dumps({**report, "checked_ts": time.time() - 11 * 60}))  # eleven minutes old
    assert 'hx-get="/s/rlx-examples/echo-env/live"' in client.get(f"/s/{ECHO}").get_data(as_text=True)
    client.get(f"/s/{ECHO}/live")
    assert json.loads(redis_client.get(key))["checked_ts"] > time.time() - 60  # asked again
