"""The Streamable HTTP rules, request by request: handshake and versions, sessions in Redis, 202s, 404s, 405,
Origin and Host, body size, batches, rate limits; and an adapter's own tools reach MCP clients."""

import json

import pytest

from rlx.adapters import register, unregister
from rlx.http.ratelimit import KEY_PREFIX as RATE_PREFIX
from rlx.mcp.sessions import KEY_PREFIX as SESSION_PREFIX, SESSION_IDLE_S
from tests.adapters.test_contract import RiddleAdapter
from tests.processes import wait_or_fail

URL = "/mcp/d/rlx-examples/terminal-basics"
ACCEPT = {"Accept": "application/json, text/event-stream"}


def rpc(method, ident=1, **params):
    body = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        body["id"] = ident
    return body


def post(client, body, session=None, url=URL, **headers):
    headers = {**ACCEPT, **headers}
    if session:
        headers["Mcp-Session-Id"] = session
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(url, data=data, headers=headers, content_type=headers.pop("Content-Type",
                                                                                 "application/json"))


def initialize(client, version="2025-11-25", url=URL):
    response = post(client, rpc("initialize", 0, protocolVersion=version, capabilities={},
                                clientInfo={"name": "pytest", "version": "1"}), url=url)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.headers["Mcp-Session-Id"], response.get_json()["result"]


@pytest.mark.parametrize("asked, answered", [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                                             ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
                                             ("1999-01-01", "2025-11-25"), ("2026-07-28", "2025-11-25")])
def test_initialize_answers_the_clients_version_when_spoken_else_the_newest(indexed_client, asked, answered):
    _, result = initialize(indexed_client, asked)
    assert result["protocolVersion"] == answered
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "rlx-examples/terminal-basics" and "6 tasks" in result["instructions"]


def test_the_session_lives_in_redis_with_an_idle_expiry(indexed_client, redis_client):
    session, _ = initialize(indexed_client)
    assert session.isascii() and all(0x21 <= ord(c) <= 0x7E for c in session)
    key = SESSION_PREFIX + session
    assert 0 < redis_client.ttl(key) <= SESSION_IDLE_S
    redis_client.expire(key, 5)
    assert post(indexed_client, rpc("ping"), session).get_json()["result"] == {}
    assert redis_client.ttl(key) > 5  # a request restarts the idle clock


def test_notifications_and_responses_get_202_and_no_body(indexed_client):
    session, _ = initialize(indexed_client)
    for body in (rpc("notifications/initialized", None), rpc("notifications/cancelled", None, requestId=9),
                 {"jsonrpc": "2.0", "id": 7, "result": {}}):
        response = post(indexed_client, body, session)
        assert response.status_code == 202 and response.get_data() == b""


def test_an_expired_or_ended_session_is_404_and_a_missing_one_400(indexed_client, redis_client):
    session, _ = initialize(indexed_client)
    redis_client.pexpire(SESSION_PREFIX + session, 1)
    wait_or_fail(lambda: not redis_client.exists(SESSION_PREFIX + session),
                 "Redis did not expire the session", 5, every=0.01)
    assert post(indexed_client, rpc("tools/list"), session).status_code == 404
    assert post(indexed_client, rpc("tools/list"), "made-up-session-id-0123456789abcdefghij").status_code == 404
    missing = post(indexed_client, rpc("tools/list"))
    assert missing.status_code == 400 and "Mcp-Session-Id" in missing.get_json()["error"]["message"]


def test_delete_ends_the_session_and_get_is_405(indexed_client):
    session, _ = initialize(indexed_client)
    got = indexed_client.get(URL, headers={"Accept": "text/event-stream", "Mcp-Session-Id": session})
    assert got.status_code == 405 and "POST" in got.headers["Allow"]
    assert indexed_client.delete(URL, headers={"Mcp-Session-Id": session}).status_code == 204
    assert post(indexed_client, rpc("ping"), session).status_code == 404
    assert indexed_client.delete(URL, headers={"Mcp-Session-Id": session}).status_code == 404


def test_a_session_does_not_cross_to_another_environment(indexed_client):
    session, _ = initialize(indexed_client)
    assert post(indexed_client, rpc("ping"), session, url="/mcp/d/rlx-examples/python-bugfix").status_code == 404


def test_the_protocol_version_header_must_match_the_session(indexed_client):
    session, _ = initialize(indexed_client, "2025-06-18")
    ok = post(indexed_client, rpc("ping"), session, **{"MCP-Protocol-Version": "2025-06-18"})
    assert ok.status_code == 200
    for bad in ("2025-11-25", "banana"):
        response = post(indexed_client, rpc("ping"), session, **{"MCP-Protocol-Version": bad})
        assert response.status_code == 400 and bad in response.get_json()["error"]["message"]


def test_the_2026_discovery_probe_gets_an_empty_400_so_clients_fall_back(indexed_client):
    probe = post(indexed_client, rpc("server/discover"), **{"MCP-Protocol-Version": "2026-07-28",
                                                            "Mcp-Method": "server/discover"})
    assert probe.status_code == 400 and probe.get_data() == b""


def test_protocol_errors_are_json_rpc_errors(indexed_client):
    session, _ = initialize(indexed_client)
    cases = {
        "resources/list": -32601,
        "tools/call": -32602,  # no name
    }
    for method, code in cases.items():
        body = post(indexed_client, rpc(method, 5), session).get_json()
        assert body["id"] == 5 and body["error"]["code"] == code
    bad_args = post(indexed_client, rpc("tools/call", 6, name="get_task", arguments=[1]), session).get_json()
    assert bad_args["error"]["code"] == -32602
    not_json = post(indexed_client, b"{nope", session)
    assert not_json.status_code == 400 and not_json.get_json()["error"]["code"] == -32700
    no_version = post(indexed_client, {"id": 1, "method": "ping"}, session)
    assert no_version.status_code == 400 and no_version.get_json()["error"]["code"] == -32600
    deep = post(indexed_client, "[" * 100 + "]" * 100, session)
    assert deep.status_code == 400
    for constant in ("NaN", "Infinity"):
        assert post(indexed_client, '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":%s}}' % constant,
                    session).status_code == 400


def test_bad_tool_arguments_are_results_marked_is_error(indexed_client):
    session, _ = initialize(indexed_client)
    for args in ({"page_size": 0}, {"page_size": 2.5}, {"page": True}, {"page": 1e300}, {"filters": "hard"},
                 {"filters": {"difficulty": [1, 2]}}, {"pagesize": 5}):
        body = post(indexed_client, rpc("tools/call", 1, name="list_tasks", arguments=args), session).get_json()
        assert body["result"]["isError"] is True, args
        assert body["result"]["content"][0]["type"] == "text"


def test_batches_only_in_the_version_that_had_them(indexed_client):
    old, _ = initialize(indexed_client, "2025-03-26")
    replies = post(indexed_client, [rpc("ping", 1), rpc("notifications/initialized", None), rpc("tools/list", 2)],
                   old).get_json()
    assert [reply["id"] for reply in replies] == [1, 2] and replies[1]["result"]["tools"]
    assert "title" not in replies[1]["result"]["tools"][0]  # titles came with 2025-06-18
    new, _ = initialize(indexed_client, "2025-11-25")
    assert post(indexed_client, [rpc("ping", 1)], new).status_code == 400


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Origin": "null"},
                                     {"Sec-Fetch-Site": "cross-site"}])
def test_cross_origin_requests_are_refused(indexed_client, headers):
    response = post(indexed_client, rpc("initialize", 0, protocolVersion="2025-11-25"), **headers)
    assert response.status_code == 403 and response.get_json()["error"]["message"]
    assert "id" not in response.get_json()


@pytest.mark.parametrize("headers", [{"Host": "evil.example"}, {"Host": "evil.example", "Origin": "http://evil.example"},
                                     {"Host": "[::1"}])
def test_rebound_hosts_are_refused_before_anything_is_read(indexed_client, redis_client, headers):
    response = post(indexed_client, rpc("initialize", 0, protocolVersion="2025-11-25"), **headers)
    assert response.status_code == 400 and "Host" in response.get_data(as_text=True)
    assert "Mcp-Session-Id" not in response.headers and not redis_client.keys("rlx:mcp:session*")


def test_the_public_host_and_same_origin_pages_are_accepted(make_config, redis_client):
    from rlx import create_app
    from tests.conftest import index_now

    app = create_app(make_config(RLX_PUBLIC_URL="https://explorer.example.org"))
    index_now(app, "rlx-examples/terminal-basics")
    client = app.test_client()
    for headers in ({"Host": "explorer.example.org", "Origin": "https://explorer.example.org"},
                    {"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}, {"Host": "[::1]:8000"}):
        response = post(client, rpc("initialize", 0, protocolVersion="2025-11-25"), **headers)
        assert response.status_code == 200, headers
    page = client.get("/d/rlx-examples/terminal-basics", headers={"Host": "127.0.0.1:8000"}).get_data(as_text=True)
    assert "https://explorer.example.org/mcp/d/rlx-examples/terminal-basics" in page


def test_bodies_and_content_types_are_checked(indexed_client):
    session, _ = initialize(indexed_client)
    huge = json.dumps(rpc("tools/call", 1, name="describe", arguments={"pad": "x" * 600_000}))
    assert post(indexed_client, huge, session).status_code == 413
    assert post(indexed_client, rpc("ping"), session, **{"Content-Type": "text/plain"}).status_code == 415
    assert post(indexed_client, rpc("ping"), session, Accept="text/html").status_code == 406


def test_an_unknown_dataset_is_refused_at_initialize(indexed_client):
    response = post(indexed_client, rpc("initialize", 0, protocolVersion="2025-11-25"),
                    url="/mcp/d/nobody/nothing-here")
    assert response.status_code == 404 and "Mcp-Session-Id" not in response.headers
    assert response.get_json()["error"]["message"]


def test_too_many_requests_from_one_address_get_429_with_retry_after(indexed_client, redis_client, monkeypatch):
    indexed_client.application.config["RLX_RATE_LIMITS"] = {"mcp": "5/minute"}
    statuses = [post(indexed_client, rpc("ping")).status_code for _ in range(7)]
    assert statuses[:5] == [400] * 5 and statuses[5:] == [429, 429]  # 400: no session, but counted
    response = post(indexed_client, rpc("ping"))
    assert int(response.headers["Retry-After"]) >= 1
    assert redis_client.keys(RATE_PREFIX + "*")


class ToolfulRiddles(RiddleAdapter):
    """The toy format with one tool of its own."""

    key = "riddles-mcp"

    def mcp_tools(self, env):
        return [{"name": "count_words", "description": "Words in one riddle.",
                 "inputSchema": {"type": "object", "properties": {"ref": {"type": "string"}}}},
                {"name": "describe", "description": "A built-in name: left out."}]

    def call_mcp_tool(self, env, index, name, arguments):
        row = next((r for r in index.rows if r.ref == arguments.get("ref")), None)
        if row is None:
            raise ValueError("ref must be one of the riddles' refs.")
        return f"{len(row.brief.split())} words"


def test_an_adapters_own_tools_are_listed_and_answered(make_config, redis_client, tmp_path):
    from rlx import create_app
    from tests.conftest import index_now

    repo = tmp_path / "src" / "datasets" / "toys" / "riddles"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("---\ntags: [riddles]\n---\n")
    (repo / "riddles.txt").write_text("What has keys but no locks?\n")
    register(ToolfulRiddles())
    try:
        app = create_app(make_config(RLX_SOURCE=str(tmp_path / "src")))
        index_now(app, "toys/riddles")
        client, url = app.test_client(), "/mcp/d/toys/riddles"
        session, _ = initialize(client, url=url)
        tools = post(client, rpc("tools/list"), session, url=url).get_json()["result"]["tools"]
        names = [tool["name"] for tool in tools]
        assert "count_words" in names and names.count("describe") == 1
        ok = post(client, rpc("tools/call", 2, name="count_words", arguments={"ref": "r1"}), session, url=url)
        assert ok.get_json()["result"] == {"content": [{"type": "text", "text": "6 words"}], "isError": False}
        bad = post(client, rpc("tools/call", 3, name="count_words", arguments={"ref": "r9"}), session, url=url)
        assert bad.get_json()["result"]["isError"] is True
    finally:
        unregister("riddles-mcp")


@pytest.mark.parametrize("value", ["explorer.example.org", "https://explorer.example.org/app", "ftp://x.org"])
def test_a_public_url_that_is_not_an_address_stops_start_up(make_config, value):
    from rlx.config import ConfigError

    with pytest.raises(ConfigError, match="RLX_PUBLIC_URL"):
        make_config(RLX_PUBLIC_URL=value)


def test_a_browser_opening_the_endpoint_lands_on_how_to_add_it_and_a_client_still_gets_405(indexed_client):
    browser = indexed_client.get(URL, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert browser.status_code == 303 and browser.headers["Location"].endswith("/d/rlx-examples/terminal-basics#mcp")
    page = indexed_client.get("/d/rlx-examples/terminal-basics").get_data(as_text=True)
    assert 'id="mcp"' in page and "claude mcp add" in page
    for accept in ("text/event-stream", "*/*", "application/json, text/event-stream"):
        assert indexed_client.get(URL, headers={"Accept": accept}).status_code == 405, accept


def test_head_is_405_like_get(indexed_client):
    assert indexed_client.head(URL).status_code == 405


def test_without_redis_the_endpoint_answers_503_with_retry_after(make_config, redis_client):
    from rlx import create_app

    app = create_app(make_config(REDIS_URL="redis://127.0.0.1:1/0"))  # nothing listens on port 1
    response = post(app.test_client(), rpc("initialize", 0, protocolVersion="2025-11-25"))
    assert response.status_code == 503 and response.headers["Retry-After"] == "5"
    assert response.get_json()["error"]["message"]


def test_a_partial_index_can_be_listed_but_tasks_wait_for_the_end(indexed_app):
    import dataclasses

    from rlx.adapters.indexes import read_index, save_index

    store = indexed_app.extensions["rlx.store"]
    index = read_index(store, "rlx-examples/terminal-basics")
    store.index_path(index.env_id).unlink()  # a first build, three tasks in
    save_index(store, dataclasses.replace(index, complete=False, rows=index.rows[:3]))
    client = indexed_app.test_client()
    session, _ = initialize(client)
    listed = post(client, rpc("tools/call", 1, name="list_tasks", arguments={}), session).get_json()["result"]
    assert not listed["isError"] and listed["structuredContent"]["total"] == 3
    assert "Indexing is still running" in listed["content"][0]["text"]
    task = post(client, rpc("tools/call", 2, name="get_task", arguments={"ref": index.rows[0].ref}),
                session).get_json()["result"]
    assert task["isError"] and "indexing has started" in task["content"][0]["text"]
