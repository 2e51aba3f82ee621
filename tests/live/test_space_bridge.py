"""The MCP bridge /mcp/<org>/<name>, driven by the official `mcp` client against real openenv servers behind
gunicorn: the Space's own tools (names and fields normalised), its Task API with answers withheld, and the caps."""

from __future__ import annotations

import asyncio
import json
import shlex

import httpx2
import pytest
from mcp import Client

from rlx.live.bridge import normalised_result
from tests.live_site import ECHO, served_site

HARBOR = "acme/harbor-like"


# One xdist worker takes every test of this module, so the module fixture starts its gunicorn site and the openenv and Harbor servers once per run
# (under --dist loadgroup, each worker given one of its tests would start its own).
pytestmark = pytest.mark.xdist_group("space_bridge")


@pytest.fixture(scope="module")
def site(tmp_path_factory, redis_url, openenv_server, harbor_server):
    with served_site(tmp_path_factory.mktemp("bridge"), redis_url,
                     {"rlx-examples-echo-env": openenv_server, "acme-harbor-like": harbor_server},
                     {HARBOR: "acme-harbor-like"}) as url:
        yield url


@pytest.fixture(autouse=True)
def _fresh_limits(redis_client):
    """redis_client starts every test on an empty Redis: its own rate budget and session counts."""


def run(coro):
    return asyncio.run(coro)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_the_echo_servers_own_tools_through_the_official_client(site):
    async def session():
        async with Client(f"{site}/mcp/{ECHO}") as client:
            tools = await client.list_tools()
            echoed = await client.call_tool("echo_message", {"message": "bridged hello"})
            length = await client.call_tool("echo_with_length", {"message": "four"})
            wrong = await client.call_tool("echo_message", {})
            return tools, echoed, length, wrong

    tools, echoed, length, wrong = run(session())
    names = {tool.name for tool in tools.tools}
    assert {"echo_message", "echo_with_length"} <= names
    assert "reset" not in names  # the server has tools of its own: ours are not added
    assert all(tool.input_schema["type"] == "object" for tool in tools.tools)
    assert text_of(echoed) == "bridged hello" and not echoed.is_error
    assert echoed.structured_content == {"result": "bridged hello"}  # from OpenEnv's structured_content
    assert "4" in text_of(length)
    assert wrong.is_error  # the server's refusal, as a tool result the model can read


def test_the_space_pages_claude_code_snippet_reaches_its_tools(site):
    from tests.web.test_mcp_page import snippets_of

    page_html = httpx2.get(f"{site}/s/{ECHO}", timeout=30).text
    url = shlex.split(snippets_of(page_html)["Claude Code"])[6]

    async def session():
        async with Client(url) as client:
            return await client.list_tools()

    assert {"echo_message", "echo_with_length"} <= {tool.name for tool in run(session()).tools}


def test_the_task_api_as_tools_with_answers_withheld(site):
    async def session():
        async with Client(f"{site}/mcp/{HARBOR}") as client:
            tools = await client.list_tools()
            splits = await client.call_tool("list_splits", {})
            tasks = await client.call_tool("list_tasks", {"split": "harbor-org/terminal-tasks", "count": 2})
            task = await client.call_tool("get_task", {"split": "harbor-org/terminal-tasks", "index": 1})
            bad = await client.call_tool("get_task", {"split": "harbor-org/terminal-tasks", "index": -4})
            return tools, splits, tasks, task, bad

    tools, splits, tasks, task, bad = run(session())
    assert {"list_splits", "list_tasks", "get_task", "capabilities"} <= {tool.name for tool in tools.tools}
    assert "terminal-bench@2.0" in text_of(splits)
    assert [t["task_id"] for t in tasks.structured_content["tasks"]] == ["t0", "t1"]
    assert task.structured_content["task"]["instruction"] == "Do thing 1."
    everything = text_of(splits) + text_of(tasks) + text_of(task) + json.dumps(task.structured_content)
    assert "secret answer" not in everything and "solution" in task.structured_content["withheld"]
    assert bad.is_error and "between 0 and" in text_of(bad)


def test_a_value_one_tool_answer_withheld_stays_masked_in_the_session_s_later_tool_answers(site):
    async def session():
        async with Client(f"{site}/mcp/{HARBOR}") as agent:
            graded = await agent.call_tool("grade", {"index": 1})
            explained = await agent.call_tool("explain", {"index": 1})
            other = await agent.call_tool("explain", {"index": 2})  # a value this session never saw withheld
        async with Client(f"{site}/mcp/{HARBOR}") as stranger:  # another session remembers nothing
            fresh = await stranger.call_tool("explain", {"index": 1})
        return graded, explained, other, fresh

    graded, explained, other, fresh = run(session())
    assert "secret answer" not in text_of(graded) + json.dumps(graded.structured_content)
    assert '"task_id": "t1"' in text_of(graded).replace("\\", "")
    assert text_of(explained) == "Task 1 is done once you reach ‹withheld›."
    assert "secret answer" not in json.dumps(explained.structured_content or {}, ensure_ascii=False)
    assert text_of(other) == "Task 2 is done once you reach the secret answer 2."
    assert text_of(fresh) == "Task 1 is done once you reach the secret answer 1."


def test_sessions_are_capped_per_address(site):
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    statuses = [httpx2.post(f"{site}/mcp/{ECHO}", json=body, headers=headers, timeout=30).status_code
                for _ in range(11)]
    assert statuses == [200] * 10 + [429]
    refused = httpx2.post(f"{site}/mcp/{ECHO}", json=body, headers=headers, timeout=30)
    assert "already holds 10 live sessions" in refused.text and refused.headers["Retry-After"]


def test_a_private_or_unknown_space_is_refused_before_a_session(site):
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}}
    missing = httpx2.post(f"{site}/mcp/acme/nope", json=body, timeout=30)
    assert missing.status_code == 404 and "Mcp-Session-Id" not in missing.headers


def test_images_become_image_content_and_fields_are_renamed():
    result = normalised_result({"content": [{"type": "text", "text": "a frame"},
                                            {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"}],
                                "structured_content": {"frame": 1, "gold_answer": "x"}, "is_error": False})
    assert result.content == [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]
    assert result.structured == {"frame": 1} and result.text == "a frame" and not result.is_error
