"""Traces, packed Harbor tasks and task folders over MCP, through the official `mcp` client against a real
server: packed tasks and task folders list their tasks, read one in full and read its files, answers withheld and
refused by name; a dataset of traces lists and reads its recorded runs."""

import asyncio
import re

import pytest
from mcp import Client

from tests.mcp_servers import copied_world, serving

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
ENVS = {  # env id -> (a file the agent may read, a file that is withheld)
    "rlx-examples/packed-harbor-tasks": ("tests/test.sh", "solution/solve.sh"),
    "rlx-examples/shell-katas": ("tests/test.sh", "tests/expected_output.txt"),
}
TRACES = "rlx-examples/agent-traces"
SOURCES = ("rlx-examples/terminal-basics", "rlx-examples/science-puzzles")  # read by the packed set's build only


@pytest.fixture(scope="module")
def world(tmp_path_factory, redis_url):
    envs = [*ENVS, TRACES]
    with serving(copied_world(tmp_path_factory.mktemp("more-mcp"), redis_url, [*envs, *SOURCES], envs)) as world:
        yield world


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.mark.parametrize("env_id", list(ENVS))
def test_each_lists_reads_and_opens_its_files_over_mcp_without_answers(world, env_id):
    shown, withheld = ENVS[env_id]

    async def session():
        async with Client(world.endpoint(env_id)) as client:
            listed = await client.call_tool("list_tasks", {"page_size": 5})
            refs = [t["ref"] for t in listed.structured_content["tasks"]]
            ref = next((r for r in refs if r.endswith("word-frequency")), refs[0])  # the kata with tests/
            task = await client.call_tool("get_task", {"ref": ref})
            files = []
            if shown:
                files.append(await client.call_tool("read_file", {"ref": ref, "path": shown}))
                files.append(await client.call_tool("read_file", {"ref": ref, "path": withheld}))
            return listed, task, files

    listed, task, files = asyncio.run(session())
    assert not listed.is_error and not task.is_error
    assert "What the agent gets" in text_of(task) and "withheld" in text_of(task).lower()
    texts = [text_of(listed), text_of(task)] + [text_of(f) for f in files]
    if files:
        readable, refused = files
        assert not readable.is_error and "#!/" in text_of(readable)
        assert refused.is_error and "is withheld" in text_of(refused)
    assert not any(SECRET.search(t) for t in texts)


def test_a_dataset_of_traces_is_read_over_mcp_as_recorded_runs(world):
    async def session():
        async with Client(world.endpoint("rlx-examples/agent-traces")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            described = await client.call_tool("describe", {})
            listed = await client.call_tool("list_rollouts", {})
            one = await client.call_tool("get_rollout", {"file": 0, "trace": 1})
            missing = await client.call_tool("get_rollout", {"file": 0, "trace": 99})
            tasks = await client.call_tool("list_tasks", {})
            return names, described, listed, one, missing, tasks

    names, described, listed, one, missing, tasks = asyncio.run(session())
    assert {"list_rollouts", "get_rollout"} <= names
    assert "6 traces" in text_of(described) and "runs, not tasks" in text_of(described)
    assert "trace 1: Should I pack an umbrella for Bergen" in text_of(listed)
    assert [t["n"] for t in listed.structured_content["files"][0]["traces"]] == [0, 1, 2, 3, 4]
    assert "get_forecast returned" in text_of(one) and "What the agent got" in text_of(one)
    assert "final_answer" in text_of(one)  # named as withheld, its value not shown
    assert missing.is_error and "has no trace 99" in text_of(missing)
    assert "No task." in text_of(tasks)
    assert not any(SECRET.search(text_of(r)) for r in (described, listed, one))


def test_rollout_tools_are_not_offered_where_there_are_no_rollouts(world):
    from mcp.shared.exceptions import MCPError

    async def session():
        async with Client(world.endpoint("rlx-examples/shell-katas")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            with pytest.raises(MCPError, match="Unknown tool: list_rollouts"):
                await client.call_tool("list_rollouts", {})
            return names

    assert "list_rollouts" not in asyncio.run(session())
