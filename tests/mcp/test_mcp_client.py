"""MCP for every environment, driven by the official `mcp` client against real servers (gunicorn on loopback).

A coding agent adds /mcp/d/<org>/<name>, initializes, lists the tools and reads tasks; answers never reach it;
its session lives in Redis, so whichever web process answers, the session holds.
"""

import asyncio
import json
import re

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from rlx.queue.connection import connect
from tests.mcp_servers import EXAMPLES, FIXTURE_TASK, UNINDEXED, build_world, serving

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
TERMINAL = "rlx-examples/terminal-basics"
TOOLS = {"describe", "list_tasks", "search_tasks", "get_task", "read_file", "random_task"}


# One xdist worker takes every test of this module, so the module fixture starts two gunicorn servers once per run
# (under --dist loadgroup, each worker given one of its tests would start its own).
pytestmark = pytest.mark.xdist_group("mcp_client")


@pytest.fixture(scope="module")
def world(tmp_path_factory, redis_url):
    with serving(build_world(tmp_path_factory.mktemp("mcp"), redis_url), servers=2) as world:
        yield world


@pytest.fixture(autouse=True)
def _fresh_rate_limits(redis_url):
    """Every test starts with its own request budget (all of them come from 127.0.0.1)."""
    redis = connect(redis_url)
    for key in redis.scan_iter("rlx:rate*"):
        redis.delete(key)


def run(coro):
    return asyncio.run(coro)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


async def call_all(url: str, calls: list[tuple[str, dict]], mode: str = "auto"):
    async with Client(url, mode=mode) as client:
        return client.protocol_version, [await client.call_tool(name, args) for name, args in calls]


def test_a_client_initializes_lists_the_tools_and_reads_an_environment(world):
    async def session():
        async with Client(world.endpoint(TERMINAL)) as client:
            tools = await client.list_tools()
            described = await client.call_tool("describe", {})
            page = await client.call_tool("list_tasks", {"page_size": 2})
            return client.protocol_version, client.server_info, tools, described, page

    version, info, tools, described, page = run(session())
    assert version == "2025-11-25"  # the newest handshake version, after the 2026 probe fell back
    assert info.name == TERMINAL
    assert TOOLS <= {tool.name for tool in tools.tools}
    assert all(tool.input_schema["type"] == "object" for tool in tools.tools)
    about = text_of(described)
    task_dirs = sorted(p.name for p in (EXAMPLES / "datasets" / TERMINAL / "tasks").iterdir())
    assert f"{len(task_dirs)} tasks" in about and "Harbor" in about and "Reward file" in about
    assert f"{world.urls[0]}/d/{TERMINAL}" in about  # the absolute URL of the page
    assert not page.is_error
    listed = [row["ref"] for row in page.structured_content["tasks"]]
    assert listed == task_dirs[:2] and page.structured_content["total"] == len(task_dirs)
    assert "page 1 of 3" in text_of(page) and "page=2" in text_of(page)


def test_each_tool_reads_what_the_task_folder_holds(world):
    task = EXAMPLES / "datasets" / TERMINAL / "tasks" / "csv-sales-rollup"
    instruction = (task / "instruction.md").read_text()
    version, (found, task_text, file_text, rand, facet_page, second_page) = run(call_all(world.endpoint(TERMINAL), [
        ("search_tasks", {"query": "CSV sales"}),
        ("get_task", {"ref": "csv-sales-rollup"}),
        ("read_file", {"ref": "csv-sales-rollup", "path": "tests/test.sh"}),
        ("random_task", {}),
        ("list_tasks", {"filters": {"difficulty": "medium"}, "page_size": 100}),
        ("list_tasks", {"page": 2, "page_size": 5}),
    ]))
    assert [row["ref"] for row in found.structured_content["tasks"]] == ["csv-sales-rollup"]
    body = text_of(task_text)
    assert instruction.strip().splitlines()[0] in body
    assert "# How it is graded" in body and "# Withheld" in body and "solution" in body
    assert (task / "tests" / "test.sh").read_text().strip() in text_of(file_text)
    refs = {p.name for p in (task.parent).iterdir()}
    assert re.search(r"Task `([^`]+)`", text_of(rand)).group(1) in refs
    medium = {p.name for p in task.parent.iterdir() if 'difficulty = "medium"' in (p / "task.toml").read_text()}
    assert {row["ref"] for row in facet_page.structured_content["tasks"]} == medium
    assert len(second_page.structured_content["tasks"]) == len(refs) - 5


def test_a_withheld_file_is_refused_with_the_reason(world):
    _, (refused,) = run(call_all(world.endpoint(TERMINAL), [
        ("read_file", {"ref": "csv-sales-rollup", "path": "solution/solve.sh"})]))
    assert refused.is_error
    assert "withheld" in text_of(refused) and "solution" in text_of(refused).lower()
    solution = (EXAMPLES / "datasets" / TERMINAL / "tasks" / "csv-sales-rollup" / "solution" / "solve.sh")
    assert solution.read_text().strip().splitlines()[-1] not in text_of(refused)


def test_bad_arguments_are_tool_errors_an_unknown_tool_a_protocol_error(world):
    _, results = run(call_all(world.endpoint(TERMINAL), [
        ("list_tasks", {"page_size": 1000}),
        ("list_tasks", {"page": 99}),
        ("list_tasks", {"filters": {"colour": "red"}}),
        ("get_task", {"ref": "no-such-task"}),
        ("read_file", {"ref": "csv-sales-rollup", "path": "../../etc/passwd"}),
        ("search_tasks", {"query": ""}),
    ]))
    assert all(result.is_error for result in results)
    messages = [text_of(result) for result in results]
    assert "page_size must be from 1 to 100" in messages[0]
    assert "past the last page" in messages[1]
    assert "no filter 'colour'" in messages[2] and "difficulty" in messages[2]
    assert "no task 'no-such-task'" in messages[3]
    assert "inside the task" in messages[4]

    async def unknown_tool():
        async with Client(world.endpoint(TERMINAL)) as client:
            try:
                await client.call_tool("delete_everything", {})
            except MCPError as exc:
                return exc
            return None

    error = run(unknown_tool())
    assert error is not None and error.code == -32602 and "Unknown tool" in error.error.message


def test_no_planted_answer_reaches_any_tool_output(world):
    files = sorted(str(p.relative_to(FIXTURE_TASK)) for p in FIXTURE_TASK.rglob("*") if p.is_file())
    calls = [("describe", {}), ("list_tasks", {}), ("search_tasks", {"query": "planted"}),
             ("get_task", {"ref": "planted"}), ("random_task", {})]
    calls += [("read_file", {"ref": "planted", "path": path}) for path in files]
    _, results = run(call_all(world.endpoint("adv/leaky"), calls))
    seen = [(name, args, text_of(result) + json.dumps(result.structured_content or {}))
            for (name, args), result in zip(calls, results)]
    assert [(name, args) for name, args, text in seen if SECRET.search(text)] == []
    task_text = seen[3][2]
    assert "KEEP-ME-instruction" in task_text  # the instruction itself does reach the agent
    assert "Withheld (answers are never shown)" in task_text
    refused = [args["path"] for (name, args), result in zip(calls, results) if name == "read_file" and result.is_error]
    assert "solution/solve.sh" in refused and "steps/two/solution/solve.sh" in refused


class Alternating(httpx2.AsyncBaseTransport):
    """Sends each request to the next server in turn: a load balancer with no affinity."""

    def __init__(self, ports: list[int]):
        self.ports, self.inner, self.sent = ports, httpx2.AsyncHTTPTransport(), []

    async def handle_async_request(self, request):
        port = self.ports[len(self.sent) % len(self.ports)]
        self.sent.append((port, request.method))
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


def test_a_session_holds_across_two_web_processes_sharing_redis(world):
    ports = [int(url.rsplit(":", 1)[1]) for url in world.urls]
    transport = Alternating(ports)

    async def session():
        async with httpx2.AsyncClient(transport=transport, timeout=30) as http:
            async with Client(streamable_http_client(world.endpoint(TERMINAL), http_client=http),
                              mode="legacy") as client:
                return [await client.call_tool("get_task", {"ref": ref}) for ref in
                        ("csv-sales-rollup", "nginx-log-summary", "permissions-audit", "fix-backup-script")]

    results = run(session())
    assert not any(result.is_error for result in results)
    posts = [port for port, method in transport.sent if method == "POST"]
    assert set(posts) == set(ports) and len(posts) >= 6  # initialize, initialized, 4 calls: both processes served


def test_an_unindexed_dataset_starts_indexing_and_says_to_retry(world, redis_url):
    from rq import Queue

    _, (first,) = run(call_all(world.endpoint(UNINDEXED), [("list_tasks", {})]))
    assert first.is_error
    assert "indexing has started" in text_of(first) and "again" in text_of(first)
    queued = Queue("index", connection=connect(redis_url)).job_ids
    assert any("science-puzzles" in job_id for job_id in queued)


def test_legacy_mode_clients_speak_the_same(world):
    version, (result,) = run(call_all(world.endpoint(TERMINAL), [("describe", {})], mode="legacy"))
    assert version == "2025-11-25" and not result.is_error
