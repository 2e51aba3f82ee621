"""Episodes over MCP: the official `mcp` client against the bridge /mcp/<org>/<name> (gunicorn, gevent) of real
openenv servers of our own. Each MCP session plays one episode on the server (reset, step and state share it) and
keeps one cookie jar for a plain server's routes; the session's end closes its episode, so a one-session server
is free for the next client."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest
from mcp import Client

from rlx.live.episode import Episode
from tests.live_site import served_site

GAME = "acme/one-seat"
FRAMES = "acme/frames"
PLAIN = "acme/plain-api"


@pytest.fixture(scope="module")
def site(tmp_path_factory, redis_url, one_seat_server, plain_server, frames_server):
    with served_site(tmp_path_factory.mktemp("mcp-episodes"), redis_url,
                     {"acme-one-seat": one_seat_server, "acme-plain-api": plain_server, "acme-frames": frames_server},
                     {GAME: "acme-one-seat", PLAIN: "acme-plain-api", FRAMES: "acme-frames"}) as url:
        yield url


def run(coro):
    return asyncio.run(coro)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_a_game_of_four_moves_is_played_over_mcp_and_the_server_is_free_after(site, one_seat_server):
    async def game():
        async with Client(f"{site}/mcp/{GAME}") as player:
            names = {tool.name for tool in (await player.list_tools()).tools}
            await player.call_tool("reset", {})
            moves = [await player.call_tool("step", {"action": {"cell": cell}}) for cell in (4, 8, 2, 6)]
            state = await player.call_tool("state", {})
            async with Client(f"{site}/mcp/{GAME}") as other:
                refused = await other.call_tool("reset", {})
            return names, moves, state, refused

    names, moves, state, refused = run(game())
    assert {"reset", "step", "state"} <= names
    last = json.loads(text_of(moves[-1]))
    assert last["observation"]["message"] == "X wins." and last["done"] is True and last["reward"] == 1.0
    assert last["observation"]["board"] == [["O", "O", "X"], ["O", "X", " "], ["X", " ", "X"]]
    assert json.loads(text_of(state))["step_count"] == 4  # one episode, not a fresh environment per call
    assert refused.is_error and "Server at capacity: 1/1 sessions active" in text_of(refused)
    with Episode(one_seat_server) as episode:  # the sessions ended: the one-session server is free again
        assert episode.reset()["observation"]["message"] == "Your move: you are X."


def test_a_login_then_whoami_keeps_the_session_s_cookies(site):
    async def calls():
        async with Client(f"{site}/mcp/{PLAIN}") as ada:
            await ada.call_tool("get_login", {"name": "ada"})
            mine = await ada.call_tool("get_whoami", {})
            async with Client(f"{site}/mcp/{PLAIN}") as stranger:
                theirs = await stranger.call_tool("get_whoami", {})
            return mine, theirs

    mine, theirs = run(calls())
    assert '"who": "ada"' in text_of(mine)
    assert '"who": "nobody"' in text_of(theirs)  # one jar per session


def test_a_refusal_names_the_request_it_answers(site):
    refused = httpx2.post(f"{site}/mcp/{GAME}", json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
                          headers={"Accept": "application/json, text/event-stream", "Mcp-Session-Id": "x" * 40},
                          timeout=30)
    assert refused.status_code == 404 and refused.json()["id"] == 7


def test_an_answer_withheld_once_stays_masked_in_the_episode_s_later_answers(site):
    async def episode():
        async with Client(f"{site}/mcp/{FRAMES}") as agent:
            started = await agent.call_tool("reset", {})
            stepped = await agent.call_tool("step", {"action": {"action_id": 2}})
            return started.structured_content, stepped.structured_content

    started, stepped = run(episode())
    assert "correct_answer" not in started["observation"] and "7919" not in json.dumps(started)
    later = stepped["observation"]
    assert later["total_legs"] == "‹withheld›" and later["summary"] == "The answer was ‹withheld› legs."
