"""A visitor's first open of a dataset while the Hub answers 5xx on every file: within seconds of the indexing job
knowing it, the page says what failed and when it will be tried again, /api/env answers 503 with Retry-After and
the sentence, and MCP a tool error with it. A first open whose own job is still waiting says so too."""

from __future__ import annotations

import re
import time

from tests.processes import wait_until
from tests.stand_ins.hub_fixtures import BULK_HARBOR, PUBLIC_HARBOR
from tests.mcp.test_mcp_protocol import ACCEPT, rpc
from tests.sources.test_source_outages import hub_app, hub_config, hub_worker  # noqa: F401

TRIED_AGAIN = re.compile(r"It is tried again at \d\d:\d\d:\d\d UTC \(in \d+ s\)\.")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def mcp_tool_error(client, repo_id: str) -> str:
    init = rpc("initialize", 0, protocolVersion="2025-11-25", capabilities={}, clientInfo={"name": "a", "version": "1"})
    session = client.post(f"/mcp/d/{repo_id}", json=init, headers=ACCEPT).headers.get("Mcp-Session-Id", "")
    answer = client.post(f"/mcp/d/{repo_id}", json=rpc("tools/call", 1, name="list_tasks", arguments={}),
                         headers={**ACCEPT, "Mcp-Session-Id": session}).get_json()["result"]
    assert answer["isError"] is True
    return answer["content"][0]["text"]


def test_a_first_open_says_the_hub_failed_and_when_it_is_tried_again(hub, hub_app, hub_worker):  # noqa: F811
    client = hub_app.test_client()
    hub.fail(520, times=100_000, path_contains="/resolve/", retry_after=30)
    opened = time.monotonic()
    client.get(f"/d/{PUBLIC_HARBOR}")

    def page_naming_the_failure():
        page = text_of(client.get(f"/d/{PUBLIC_HARBOR}").get_data(as_text=True))
        return page if "The Hub answered 520" in page else None

    said = wait_until(page_naming_the_failure, timeout=30)
    assert time.monotonic() - opened < 20, "the page went on saying 'waiting' long after the job knew"
    assert "Indexing failed" in said and TRIED_AGAIN.search(said), said[:600]
    response = client.get(f"/api/env/{PUBLIC_HARBOR}")
    assert response.status_code == 503 and 1 <= int(response.headers["Retry-After"]) <= 30
    body = response.get_json()
    assert "The Hub answered 520" in body["error"] and TRIED_AGAIN.search(body["error"]) and body["state"] == "failed"
    tool_error = mcp_tool_error(client, PUBLIC_HARBOR)
    assert "The Hub answered 520" in tool_error and TRIED_AGAIN.search(tool_error)


def test_a_first_open_whose_job_waits_says_the_hub_is_failing(hub, hub_app, hub_worker):  # noqa: F811
    client = hub_app.test_client()
    hub.fail(520, times=100_000, path_contains="/resolve/", retry_after=30)
    client.get(f"/d/{PUBLIC_HARBOR}")  # another visitor's job learns of the outage
    wait_until(lambda: client.get(f"/api/env/{PUBLIC_HARBOR}").get_json()["state"] == "failed", timeout=30)
    hub_worker.terminate()  # no worker free: the next first open's job waits in the queue
    hub_worker.wait(15)
    page = text_of(client.get(f"/d/{BULK_HARBOR[0]}").get_data(as_text=True))
    assert "Reading" in page and "The Hub is failing" in page and "The Hub answered 520" in page
    assert TRIED_AGAIN.search(page)
    response = client.get(f"/api/env/{BULK_HARBOR[0]}")
    assert response.status_code == 503 and response.headers["Retry-After"]
    assert response.get_json()["state"] == "indexing" and "The Hub is failing" in response.get_json()["error"]
    assert "the Hub is failing" in mcp_tool_error(client, BULK_HARBOR[0])
