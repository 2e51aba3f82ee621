"""Rows datasets over MCP, through the official `mcp` client against a real server: each rows format lists its
tasks and reads one in full, with what was withheld named and no answer in the text."""

import asyncio
import re

import pytest
from mcp import Client

from tests.conftest import index_now
from tests.mcp_servers import copied_world, serving
from tests.web.test_rows_pages import ROWS_EXAMPLES

SECRET = re.compile(r"ZX-ANSWER-\d{4}")


@pytest.fixture(scope="module")
def rows_world(tmp_path_factory, redis_url):
    with serving(copied_world(tmp_path_factory.mktemp("rows-mcp"), redis_url, ROWS_EXAMPLES)) as world:
        yield world


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.mark.parametrize("env_id", list(ROWS_EXAMPLES))
def test_each_rows_format_lists_and_reads_its_tasks_over_mcp_without_answers(rows_world, env_id):
    async def session():
        async with Client(rows_world.endpoint(env_id)) as client:
            listed = await client.call_tool("list_tasks", {"page_size": 3})
            first = listed.structured_content["tasks"][-1]["ref"]
            return listed, await client.call_tool("get_task", {"ref": first})

    listed, task = asyncio.run(session())
    assert not listed.is_error and not task.is_error
    text = text_of(listed) + text_of(task)
    assert "What the agent gets" in text_of(task) and "withheld" in text_of(task).lower()
    assert not SECRET.search(text)


@pytest.fixture(scope="module")
def short_list_world(tmp_path_factory, redis_url):
    """A verl dataset whose index lists only its first two rows, as a big split's index lists its first thousand."""
    import rlx.adapters.rows.build as rows_build

    env_id = "rlx-examples/countdown-verl"
    world = copied_world(tmp_path_factory.mktemp("rows-mcp-short"), redis_url, [env_id], indexed=())
    listed, rows_build.ROWS_INDEXED_PER_SPLIT = rows_build.ROWS_INDEXED_PER_SPLIT, 2
    try:
        index_now(world.app, env_id)
    finally:
        rows_build.ROWS_INDEXED_PER_SPLIT = listed
    with serving(world):
        yield world


def test_a_row_past_the_listed_ones_reads_over_mcp_as_on_its_page(short_list_world):
    async def session():
        async with Client(short_list_world.endpoint("rlx-examples/countdown-verl")) as client:
            listed = await client.call_tool("list_tasks", {"page_size": 50})
            return listed, await client.call_tool("get_task", {"ref": "train/14"})

    listed, task = asyncio.run(session())
    assert [t["ref"] for t in listed.structured_content["tasks"]] == ["train/0", "train/1"]
    assert not task.is_error, text_of(task)
    assert "What the agent gets" in text_of(task) and not SECRET.search(text_of(task))
