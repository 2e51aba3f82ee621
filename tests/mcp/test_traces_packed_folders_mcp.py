"""Traces, packed Harbor tasks and task folders over MCP, through the official `mcp` client against a real
server: each lists its tasks, reads one in full and reads its files, answers withheld and refused by name."""

import asyncio
import re

import pytest
from mcp import Client

from tests.mcp_servers import copied_world, serving

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
ENVS = {  # env id -> (a file the agent may read, a file that is withheld)
    "rlx-examples/agent-traces": (None, None),
    "rlx-examples/packed-harbor-tasks": ("tests/test.sh", "solution/solve.sh"),
    "rlx-examples/shell-katas": ("tests/test.sh", "tests/expected_output.txt"),
}
SOURCES = ("rlx-examples/terminal-basics", "rlx-examples/science-puzzles")  # read by the packed set's build only


@pytest.fixture(scope="module")
def world(tmp_path_factory, redis_url):
    with serving(copied_world(tmp_path_factory.mktemp("more-mcp"), redis_url, [*ENVS, *SOURCES], ENVS)) as world:
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
