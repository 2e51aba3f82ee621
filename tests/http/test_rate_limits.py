"""Rate limits are counted in Redis: every process agrees, a limited request gets 429 with Retry-After and changes
nothing, and other engineers' routes take the same hook (`rate_limited`, `over_limit`)."""

import pytest

from rlx import create_app
from rlx.http.ratelimit import KEY_PREFIX, over_limit, rate_limited

OURS = {"Origin": "http://localhost"}


def two_processes(make_config, limits):
    """Two apps on the same Redis, as two gunicorn workers (or two hosts) are: nothing shared in memory."""
    apps = [create_app(make_config()), create_app(make_config())]
    for app in apps:
        app.config["RLX_RATE_LIMITS"] = limits
    return [app.test_client() for app in apps]


def test_banner_dismiss_is_limited_across_processes_with_retry_after(make_config, redis_client):
    first, second = two_processes(make_config, {"writes": "3/minute"})
    statuses = [client.post("/banner/dismiss", data={"next": "/"}, headers=OURS).status_code
                for client in (first, second, first, second)]
    assert statuses == [303, 303, 303, 429]
    limited = first.post("/banner/dismiss", data={"next": "/"}, headers=OURS)
    assert limited.status_code == 429 and 1 <= int(limited.headers["Retry-After"]) <= 60
    assert "Too many requests" in limited.get_data(as_text=True) and "Set-Cookie" not in limited.headers
    assert redis_client.keys(KEY_PREFIX + "*")


def test_reindex_is_limited_and_a_limited_request_starts_no_job(make_config, redis_client):
    from rq import Queue

    first, second = two_processes(make_config, {"writes": "1/minute"})
    url = "/d/rlx-examples/countdown-verl/reindex"
    assert first.post(url, headers=OURS).status_code == 303
    queued = sum(Queue(name, connection=redis_client).count for name in ("index", "snapshot", "rollouts"))
    assert second.post(url, headers=OURS).status_code == 429
    assert sum(Queue(name, connection=redis_client).count for name in ("index", "snapshot", "rollouts")) == queued


def test_an_address_is_counted_apart_from_another(make_config, redis_client):
    client, _ = two_processes(make_config, {"writes": "1/minute"})
    assert client.post("/banner/dismiss", headers=OURS, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 303
    assert client.post("/banner/dismiss", headers=OURS, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 429
    assert client.post("/banner/dismiss", headers=OURS, environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 303


def test_mcp_shares_the_mechanism_across_processes(make_config, redis_client):
    from tests.mcp.test_mcp_protocol import post, rpc

    first, second = two_processes(make_config, {"mcp": "2/minute"})
    statuses = [post(client, rpc("ping")).status_code for client in (first, second, first)]
    assert statuses[:2] != [429, 429] and statuses[2] == 429
    assert post(second, rpc("ping")).get_json()["error"]["message"].startswith("Too many")


def test_the_hook_limits_any_view_and_any_action(make_config, redis_client):
    """What a run form, a sign-in or a wake button does: decorate the view, or ask in the middle of one."""
    app = create_app(make_config())
    app.config["RLX_RATE_LIMITS"] = {"runs": "2/hour", "wake": "1/minute"}

    @app.post("/api/try-run")
    @rate_limited("runs")
    def try_run():
        return {"ok": True}

    @app.get("/try-wake/<space>")
    def try_wake(space):
        wait = over_limit("wake", who=space)  # per Space, not per address
        return ({"waking": space}, 200) if wait is None else ({"wait": wait}, 429)

    client = app.test_client()
    runs = [client.post("/api/try-run", headers=OURS) for _ in range(3)]
    assert [r.status_code for r in runs] == [200, 200, 429]
    assert runs[2].is_json and runs[2].get_json()["status"] == 429 and int(runs[2].headers["Retry-After"]) > 60
    assert [client.get(f"/try-wake/{s}").status_code for s in ("a", "a", "b")] == [200, 429, 200]


@pytest.mark.parametrize("name", ["writes", "mcp", "sign_in", "token", "runs", "wake"])
def test_every_named_limit_parses(app, name):
    from limits import parse

    from rlx.http.ratelimit import limit_for

    with app.app_context():
        assert parse(limit_for(name)).amount >= 1


def test_a_down_redis_is_a_503_not_a_500(make_config):
    app = create_app(make_config(REDIS_URL="redis://127.0.0.1:1/0"))
    response = app.test_client().post("/banner/dismiss", headers=OURS)
    assert response.status_code == 503 and response.headers["Retry-After"]



def test_pasted_tokens_and_run_requests_are_limited_across_processes(make_config, redis_client):
    """A wrong token pasted again and again, or a flood of run requests: the second process refuses the next one."""
    first, second = two_processes(make_config, {"token": "1/minute", "runs": "1/minute"})
    assert first.post("/signin/token", data={"token": "hf_wrong"}, headers=OURS).status_code != 429
    limited = second.post("/signin/token", data={"token": "hf_wrong"}, headers=OURS)
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1

    run_url = "/t/rlx-examples/terminal-basics/csv-sales-rollup/run"
    assert first.post(run_url, data={"agent": "forged"}, headers=OURS).status_code != 429
    assert second.post(run_url, data={"agent": "forged"}, headers=OURS).status_code == 429


def test_a_forged_x_forwarded_for_does_not_escape_a_limit_by_default(make_config, redis_client):
    """With no proxies configured, X-Forwarded-For is whatever the client wrote: it must not pick who is counted."""
    client, _ = two_processes(make_config, {"writes": "1/minute"})
    first = client.post("/banner/dismiss", headers={**OURS, "X-Forwarded-For": "198.51.100.1"})
    forged = client.post("/banner/dismiss", headers={**OURS, "X-Forwarded-For": "198.51.100.2"})
    assert (first.status_code, forged.status_code) == (303, 429)


def test_behind_configured_proxies_the_client_address_from_x_forwarded_for_is_counted(make_config, redis_client):
    app = create_app(make_config(RLX_PROXY_HOPS="1"))
    app.config["RLX_RATE_LIMITS"] = {"writes": "1/minute"}
    client = app.test_client()

    def dismiss(forwarded_for: str) -> int:  # every request comes through our proxy, 10.0.0.9
        return client.post("/banner/dismiss", headers={**OURS, "X-Forwarded-For": forwarded_for},
                           environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code

    assert dismiss("203.0.113.5") == 303
    assert dismiss("203.0.113.6") == 303  # another client behind the same proxy has its own count
    assert dismiss("203.0.113.5") == 429
    # A client writing its own X-Forwarded-For: the proxy appends the address it saw, and only that one counts.
    assert dismiss("198.51.100.7, 203.0.113.5") == 429


@pytest.mark.parametrize("value", ["-1", "6", "two", "1.5"])
def test_a_bad_proxy_hops_setting_stops_start_up_with_a_sentence(make_config, value):
    from rlx.config import ConfigError

    with pytest.raises(ConfigError, match="RLX_PROXY_HOPS"):
        make_config(RLX_PROXY_HOPS=value)
