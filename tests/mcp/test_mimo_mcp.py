"""The MiMo release over MCP, through the official `mcp` client against a real server: describe gives the domains
and the reward design, list_tasks narrows by domain, get_task reads a general task with its systems and rubric,
read_file opens its workspace and its verifier_meta.json, and no answer is in any of it."""

import asyncio
import re

import pytest
from mcp import Client

from tests.mcp_servers import copied_world, serving

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
RELEASE = "rlx-examples/mimo-release"


@pytest.fixture(scope="module")
def mimo_world(tmp_path_factory, redis_url):
    with serving(copied_world(tmp_path_factory.mktemp("mimo-mcp"), redis_url, [RELEASE])) as world:
        yield world


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


def test_describe_list_get_and_read_files_of_the_release_over_mcp_without_answers(mimo_world):
    async def session():
        async with Client(mimo_world.endpoint(RELEASE)) as client:
            described = await client.call_tool("describe", {})
            listed = await client.call_tool("list_tasks", {"filters": {"domain": ["General"]}})
            task = await client.call_tool("get_task", {"ref": "general/train/0"})
            notes = await client.call_tool("read_file", {"ref": "general/train/0",
                                                         "path": "workspace/controller_notes.md"})
            meta = await client.call_tool("read_file", {"ref": "general/train/0", "path": "verifier_meta.json"})
            tools = await client.call_tool("read_file", {"ref": "general/train/0",
                                                         "path": "tools/ledger_server.py"})
            code = await client.call_tool("get_task", {"ref": "code/train/0"})
            music = await client.call_tool("get_task", {"ref": "music/train/1"})
            design = await client.call_tool("reward_design", {})
            return described, listed, task, notes, meta, tools, code, music, design

    results = asyncio.run(session())
    assert not any(r.is_error for r in results), [text_of(r) for r in results if r.is_error]
    described, listed, task, notes, meta, tools, code, music, design = (text_of(r) for r in results)
    assert "Code · 2" in described and "Σ weight × score" in described and "General: 2" in described
    assert [t["ref"] for t in results[1].structured_content["tasks"]] == ["general/train/0", "general/train/1"]
    assert "get_payments(invoice_id: int) -> list[dict]" in task and "invoices: 5 rows" in task
    assert "Does unpaid.md list every invoice" in task and "pass_anchor" in task  # named as withheld
    assert "Partial payments count as unpaid" in notes
    assert "Was /workspace/out/unpaid.md written?" in meta and "def list_invoices" in tools
    assert "python -m pytest -q tests/test_retry.py" in code and "Length (bars)" in music
    assert "Cyber 2" in design and "vision model" in design and "llm_judge (2)" in design, design
    for text in (described, listed, task, notes, meta, tools, code, music, design):
        assert not SECRET.search(text)
