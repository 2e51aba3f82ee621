"""Live introspection against a real openenv server on loopback: what it offers comes from itself, is cached in
Redis with its check time, and only the Space's own host is ever called."""

from __future__ import annotations

import json
import time

import pytest

from rlx.config import ConfigError
from rlx.live import (LiveError, SpaceClient, SpaceRefused, cached_check, check_space, introspect, public_app_url,
                      space_base_url, verified_openenv)
from rlx.sources.base import RepoRecord
from rlx.sources.folder import FolderSource
from tests.conftest import EXAMPLES
from tests.stand_ins.bad_space import BadSpace

ECHO = "rlx-examples/echo-env"


def space(subdomain="some-env", **kw) -> RepoRecord:
    return RepoRecord(id=kw.pop("id", "acme/some-env"), repo_type="space", sdk="docker", tags=("openenv",),
                      host=kw.pop("host", f"https://{subdomain}.hf.space"), **kw)


def echo_record() -> RepoRecord:
    return FolderSource(EXAMPLES).repo_info("space", ECHO)


def test_the_real_echo_server_says_what_it_offers(openenv_server, redis_client, make_config):
    config = make_config(RLX_SPACE_HOSTS=f"rlx-examples-echo-env={openenv_server}")
    report = check_space(redis_client, echo_record(), config.space_hosts)
    assert report["ok"] and report["openenv"] and report["mode"] == "simulation"
    assert report["metadata"]["name"] == "EchoEnvironment"
    assert report["health"] == {"status": "healthy"}
    assert report["schema"]["action"]["properties"]["message"]["maxLength"] == 2000
    assert [t["name"] for t in report["tools"]] == ["echo_message", "echo_with_length"]
    assert report["tools"][0]["inputSchema"]["required"] == ["message"]
    # openenv 0.10 adds the Task API's routes to every server; the echo env's answer 501: no Task API at all
    assert report["environments"] == [] and report["task_api"] == {}
    paths = {r["path"] for r in report["routes"]}
    assert {"/reset", "/step", "/schema", "/mcp", "/{env_name}/splits"} <= paths
    assert report["custom_routes"] == []  # everything it serves is OpenEnv's own protocol
    assert report["ui_path"] is None and report["problems"] == {}  # no web UI without ENABLE_WEB_INTERFACE
    assert verified_openenv(report)


def test_a_check_is_cached_in_redis_for_every_process(openenv_server, redis_client, redis_url, make_config):
    from rlx.queue.connection import connect

    config = make_config(RLX_SPACE_HOSTS=f"rlx-examples-echo-env={openenv_server}")
    first = check_space(redis_client, echo_record(), config.space_hosts)
    other_process_view = cached_check(connect(redis_url), ECHO)  # a separate connection, as another process
    assert other_process_view["checked_at"] == first["checked_at"]
    again = check_space(redis_client, echo_record(), config.space_hosts)
    assert again["checked_ts"] == first["checked_ts"]  # fresh: not asked again


def test_openenv_is_claimed_only_after_a_fresh_successful_check(openenv_server, redis_client, make_config):
    config = make_config(RLX_SPACE_HOSTS=f"rlx-examples-echo-env={openenv_server}")
    report = check_space(redis_client, echo_record(), config.space_hosts)
    assert verified_openenv(report)
    stale = {**report, "checked_ts": time.time() - 2 * 3600}
    assert not verified_openenv(stale)
    redis_client.set(f"rlx:live:check:{ECHO}", json.dumps(stale))
    rechecked = check_space(redis_client, echo_record(), config.space_hosts)  # stale: asked again
    assert rechecked["checked_ts"] > stale["checked_ts"] and verified_openenv(rechecked)
    assert not verified_openenv({**report, "ok": False})


def test_an_older_openenv_without_the_task_api_is_read(redis_client):
    with BadSpace("old") as old:
        with SpaceClient(old.url) as client:
            report = introspect(client)
    assert report["ok"] and report["openenv"] and report["mode"] == "simulation"
    assert report["tools"][0]["inputSchema"]["properties"]["a"] == {"type": "integer"}  # snake_case renamed
    assert report["environments"] == [] and report["task_api"] == {}
    assert old.hits["/list_environments"] == 0  # not listed in its OpenAPI: not asked


def test_a_space_is_called_only_at_its_own_host():
    assert space_base_url(space("acme-env")) == "https://acme-env.hf.space"
    assert public_app_url(space("acme-env")) == "https://acme-env.hf.space"
    for host in ("https://evil.example", "http://acme-env.hf.space", "https://a.b.hf.space", "https://hf.space",
                 "https://acme-env.hf.space:8443", "https://user@acme-env.hf.space", "https://acme-env.hf.space/x",
                 None):
        with pytest.raises(SpaceRefused):
            space_base_url(space(host=host))
    with pytest.raises(SpaceRefused, match="private"):
        space_base_url(space("acme-env", private=True))
    # Configuration maps a subdomain to loopback; it cannot point anywhere else.
    assert space_base_url(space("acme-env"), (("acme-env", "http://127.0.0.1:9"),)) == "http://127.0.0.1:9"


@pytest.mark.parametrize("value", ["acme-env=http://10.0.0.1:80", "acme-env=https://127.0.0.1:80",
                                   "acme-env=http://evil.example:80", "Bad_Sub=http://127.0.0.1:80",
                                   "acme-env=http://127.0.0.1"])
def test_the_loopback_setting_refuses_other_hosts(make_config, value):
    with pytest.raises(ConfigError, match="RLX_SPACE_HOSTS"):
        make_config(RLX_SPACE_HOSTS=value)


@pytest.mark.parametrize("path", ["//evil.example/x", "http://evil.example/", "/../x", "/a/../../b", "/@evil",
                                  "relative", "/a b", "/x\\y"])
def test_no_path_reaches_another_host(path):
    with SpaceClient("https://acme-env.hf.space") as client:
        with pytest.raises(SpaceRefused):
            client.url(path)


def test_a_base_path_off_the_host_is_ignored_and_said(openenv_server):
    with SpaceClient(openenv_server) as client:
        report = introspect(client, base_path="//evil.example/web")
    assert "points off the Space's host" in report["problems"]["base_path"]


@pytest.mark.parametrize("mode, phrase", [
    ("5xx", "answered HTTP 503"),
    ("badjson", "not JSON"),
    ("huge", "sent more than 1 MB"),
    ("hang", "did not answer within"),
])
def test_a_misbehaving_server_gets_a_sentence_not_a_crash(mode, phrase):
    with BadSpace(mode) as bad:
        with SpaceClient(bad.url, read_timeout=0.5, deadline=2.0, max_bytes=1024 * 1024) as client:
            with pytest.raises(LiveError, match=phrase):
                client.get_json("/health")
            report = introspect(client)
    assert not report["openenv"]
    if mode in ("hang", "huge"):  # nothing answered: the first failure is the page's sentence, and no more waits
        assert not report["ok"] and phrase in report["error"] and list(report["problems"]) == ["openapi"]
    else:
        assert phrase in report["problems"]["health"]


def test_a_redirect_off_the_host_is_not_followed():
    with BadSpace("5xx") as elsewhere, BadSpace("redirect", redirect_to=None) as bad:
        bad.redirect_to = f"{elsewhere.url}/health"
        with SpaceClient(bad.url) as client:
            with pytest.raises(LiveError, match="redirected to .*not followed"):
                client.get_json("/health")
            report = introspect(client)
        assert sum(elsewhere.hits.values()) == 0
    assert "not followed" in report["problems"]["openapi"] and report["ui_path"] is None


def test_a_private_space_is_never_called(redis_client):
    with BadSpace("old") as server:
        record = space("priv-env", private=True)
        report = check_space(redis_client, record, (("priv-env", server.url),))
        assert report["refused"] and "private" in report["error"]
        assert sum(server.hits.values()) == 0
    assert cached_check(redis_client, record.id) is None


def test_a_harbor_server_shows_its_engine_sandboxes_agents_and_datasets(harbor_server):
    with SpaceClient(harbor_server) as client:
        report = introspect(client)
    harbor = report["harbor"]
    assert report["openenv"] and report["environments"] == ["harbor_env"]
    assert harbor["model"] == "Qwen/Qwen3-8B" and harbor["error"] is None
    assert {(s["name"], s["available"]) for s in harbor["sandboxes"]} == {("docker", True), ("e2b", False)}
    assert [a["name"] for a in harbor["agents"]] == ["opencode", "terminus-2"]
    by_spec = {d["spec"]: d for d in harbor["datasets"]}
    assert by_spec["harbor-org/terminal-tasks"]["hub_id"] == "harbor-org/terminal-tasks"
    assert by_spec["terminal-bench@2.0"]["hub_id"] is None  # a Harbor registry name, not a Hub dataset
    assert by_spec["broken-org/missing"]["error"] == "dataset not found"


def test_the_web_page_is_found_at_base_path_then_web_then_root():
    html = (200, {"Content-Type": "text/html; charset=utf-8"}, b"<html>app</html>")
    with BadSpace("pages") as server, SpaceClient(server.url) as client:
        server.pages = {"/play": html, "/web": html, "/": html}
        assert introspect(client, base_path="/play")["ui_path"] == "/play"
        server.pages = {"/web": (307, {"Location": "/web/"}, b""), "/": html}
        assert introspect(client, base_path="/missing")["ui_path"] == "/web/"  # a same-host redirect, not followed
        server.pages = {"/": html}
        assert introspect(client)["ui_path"] == "/"
        server.pages = {"/web": (302, {"Location": "https://elsewhere.example/"}, b"")}
        assert introspect(client)["ui_path"] is None  # a page that sends visitors elsewhere is not its page
