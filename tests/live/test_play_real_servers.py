"""The playground on real openenv servers of our own making, the app under gunicorn (gevent), real Chromium and
plain WebSocket clients.

A one-session server (tests/live_envs/one_seat_game) shared by several visitors: it is held only while an episode
is in use; whoever finds it full is told why (the server's own words), where they stand and for how long at most,
and plays as soon as it is free. A server of frames shaped like Atari's (tests/live_envs/frames): pictures
drawn as pictures, boards as grids, long values folded with their size, nothing cut without saying so."""

from __future__ import annotations

import base64
import io
import re
import time

import httpx2
import pytest
from PIL import Image
from playwright.sync_api import expect

from rlx.live.slots import open_count
from rlx.live.localenv import free_port, start_server
from tests.live_fixtures import FRAMES_DIR
from tests.processes import wait_or_fail
from tests.live_site import served_site
from tests.servers import chromium, needs_chromium
from tests.live.test_playground import Player, cookie_of, status, until

GAME = "acme/one-seat"
FRAMES = "acme/frames"
HARBOR = "acme/harbor-like"
LATE = "acme/late"  # its server starts only after a visitor found it down
LATE_PORT = free_port()
LATE_URL = f"http://127.0.0.1:{LATE_PORT}"
TASKS = "harbor-org/terminal-tasks"  # 3 tasks (tests/live_envs/harbor_like)
EPISODE_IDLE_S = 3
TURN_S = 6  # once someone waits, a player keeps the server this long at most


@pytest.fixture(scope="module")
def site(tmp_path_factory, redis_url, one_seat_server, frames_server, harbor_server):
    hosts = {"acme-one-seat": one_seat_server, "acme-frames": frames_server, "acme-harbor-like": harbor_server,
             "acme-late": LATE_URL}
    with served_site(tmp_path_factory.mktemp("share"), redis_url, hosts,
                     {GAME: "acme-one-seat", FRAMES: "acme-frames", HARBOR: "acme-harbor-like", LATE: "acme-late"},
                     episode_idle_s=EPISODE_IDLE_S, recheck_s=1, turn_s=TURN_S) as url:
        yield url


def status_text(page) -> str:
    return page.locator("#play-status").inner_text()


@needs_chromium
def test_two_browsers_take_turns_on_a_one_session_server(site, redis_client):
    with chromium() as browser:
        first, second = (browser.new_context().new_page() for _ in range(2))
        for page in (first, second):
            page.goto(f"{site}/s/{GAME}/play")
            page.wait_for_selector("#play-status[data-connected]", timeout=20_000)
        first.get_by_role("button", name="Reset").click()
        first.wait_for_selector("#play-log .play-step", timeout=20_000)
        first.locator("input[name=cell]").fill("4")
        first.get_by_role("button", name="Step").click()
        expect(first.locator("#play-log .play-step")).to_have_count(2, timeout=20_000)

        second.get_by_role("button", name="Reset").click()
        expect(second.locator("#play-status")).to_contain_text("in line", timeout=20_000)
        waiting = status_text(second)
        assert "runs 1 episode at a time" in waiting and "Server at capacity: 1/1 sessions active" in waiting
        assert "You are next in line" in waiting and "s or less" in waiting
        assert second.locator("#play-log .play-step").count() == 0

        # The first player stops moving: the server is given back, and the second plays the Reset it asked for.
        second.wait_for_selector("#play-log .play-step", timeout=30_000)
        assert "reset: reward" in status_text(second)
        assert f"given back to the server after {EPISODE_IDLE_S} s without a move" in status_text(first)
        for page in (first, second):
            assert "closed the connection" not in page.content()

        # Back again, the first player waits behind the one now playing.
        first.get_by_role("button", name="Reset").click()
        expect(first.locator("#play-status")).to_contain_text("next in line", timeout=20_000)
        second.context.close()  # the tab goes away: its episode goes with it
        expect(first.locator("#play-status")).to_contain_text("reset: reward", timeout=30_000)
        first.context.close()
    until(lambda: open_count(redis_client) == 0, "a session's slot was not given back")


def test_a_hung_step_gives_the_server_back_and_the_line_keeps_its_order(site, redis_client):
    _, cookie = cookie_of(site, GAME)  # the page's visit checks the server: the form then knows its fields
    stuck, second, third = (Player(site, GAME, cookie_of(site, GAME)[1]) for _ in range(3))
    assert "board" in stuck.send(op="reset")
    assert "in line" in status(second.send(op="reset"))
    assert "number 2 in line" in status(third.send(op="reset"))
    early = status(second.send(op="step", cell="1"))  # a move before its episode exists is not played blind
    assert "Not sent: send it again once your Reset has started the episode" in early
    assert "You are next in line" in early
    hung = stuck.send(op="step", cell="4", think_s="4")
    assert "did not answer step within 1.5 s" in status(hung)
    # The stuck socket was closed: once the server finishes that step it frees its session, for the next in line.
    turn = second.receive()
    while "in line" in status(turn):
        turn = second.receive()
    assert "reset: reward" in status(turn) and "board" in turn
    moved = third.receive()
    while "number 2" in status(moved):
        moved = third.receive()
    assert "next in line" in status(moved) and "Server at capacity" in status(moved)  # moved up one
    for player in (stuck, second, third):
        player.close()
    until(lambda: open_count(redis_client) == 0, "a session's slot was not given back")


def test_a_player_who_keeps_moving_passes_the_server_on_once_someone_has_waited_a_turn(site, redis_client):
    holder = Player(site, GAME, cookie_of(site, GAME)[1])
    waiter = Player(site, GAME, cookie_of(site, GAME)[1])
    assert "board" in holder.send(op="reset")
    waiting = status(waiter.send(op="reset"))
    waited_at = time.monotonic()
    assert "in line" in waiting and f"nobody keeps the server more than {TURN_S} s while others wait" in waiting
    told = status(holder.send(op="step", cell="4"))
    assert "step 1: reward" in told and "Someone is waiting for this server: you keep it" in told
    assert "s more, or until this episode ends, then it passes to them" in told
    # The holder keeps moving (a taken cell: reward -1, the episode never ends), well within the idle time.
    answer = ""
    while "Your turn is over" not in answer:
        assert time.monotonic() - waited_at < TURN_S + 10, "the holder kept the server past its turn"
        time.sleep(0.5)
        answer = status(holder.send(op="step", cell="4"))
    assert time.monotonic() - waited_at >= TURN_S - 1  # not cut short either
    assert "a player keeps it at most 6 s once someone waits, so it passed to them" in answer
    turn = waiter.receive()
    while "in line" in status(turn):
        turn = waiter.receive()
    assert "reset: reward" in status(turn) and "board" in turn
    again = holder.send(op="reset")  # the one who played waits behind the one now playing
    while "Your turn is over" in status(again) or "No episode is running" in status(again):
        again = holder.receive()
    assert "next in line" in status(again)
    for player in (holder, waiter):
        player.close()
    until(lambda: open_count(redis_client) == 0, "a session's slot was not given back")


def drawn_image(fragment: str, label: str) -> Image.Image:
    found = re.search(rf'<p class="muted small">{label} · [^<]*</p>\s*<img src="data:image/png;base64,([^"]+)"',
                      fragment)
    assert found, f"{label} was not drawn as an image"
    return Image.open(io.BytesIO(base64.b64decode(found.group(1))))


def test_an_atari_like_frame_is_a_picture_and_long_values_say_their_size(site):
    cookie_of(site, FRAMES)
    player = Player(site, FRAMES)
    frame = player.send(op="reset")
    assert "144, 72, 17, 144" not in frame  # the 100,800 numbers are not printed
    screen = drawn_image(frame, "screen")
    assert screen.size == (160, 210) and screen.mode == "RGB"
    assert screen.getpixel((141, 108)) == (236, 236, 236) and screen.getpixel((10, 10)) == (144, 72, 17)  # paddle
    assert "160 × 210 RGB frame, drawn from 100,800 numbers" in frame
    assert drawn_image(frame, "thumbnail").getpixel((1, 0)) == (0, 0, 255)  # nested height × width × channels
    assert drawn_image(frame, "planes").size == (32, 32)  # channels first
    assert drawn_image(frame, "grey").mode == "L"
    assert 'alt="screen_image: a PNG image sent as' in frame  # base64 bytes without a data: prefix
    assert "[0, 1, 2, 3," in frame  # the RAM on one line, not 128
    assert "<summary>5,000 lines, 143,889 characters</summary>" in frame
    assert "The first 100,000 characters are shown; 43,889 more were not sent to this page." in frame
    assert "7919" not in frame and "1 answer-like field withheld" in frame
    stepped = player.send(op="step", action_id="2")
    moved = drawn_image(stepped, "screen")
    assert moved.getpixel((141, 94)) == (236, 236, 236)  # the paddle moved up 8 rows
    # The answer withheld at reset, sent again under other names: masked there too.
    assert "7919" not in stepped and "The answer was ‹withheld› legs." in stepped
    player.close()


@needs_chromium
def test_a_board_is_a_grid_and_a_frame_an_image_in_the_browser(site):
    with chromium() as browser:
        page = browser.new_page()
        page.goto(f"{site}/s/{FRAMES}/play")
        page.wait_for_selector("#play-status[data-connected]", timeout=20_000)
        page.get_by_role("button", name="Reset").click()
        screen = page.locator('#play-log img[alt^="screen:"]')
        expect(screen).to_have_count(1, timeout=20_000)
        assert screen.evaluate("img => [img.complete, img.naturalWidth, img.naturalHeight]") == [True, 160, 210]
        assert page.locator("#play-log details.play-fold").count() == 1  # the long log, folded
        page.goto(f"{site}/s/{GAME}/play")
        page.wait_for_selector("#play-status[data-connected]", timeout=20_000)
        page.get_by_role("button", name="Reset").click()
        page.wait_for_selector("#play-log .play-step", timeout=30_000)  # the board first (it may wait in line)
        page.locator("input[name=cell]").fill("4")
        page.get_by_role("button", name="Step").click()
        expect(page.locator("#play-log .play-step")).to_have_count(2, timeout=20_000)
        board = page.locator("#play-log .play-step").first.locator("table.play-grid")
        assert [[c.strip() for c in row] for row in board.evaluate(
            "t => [...t.rows].map(r => [...r.cells].map(c => c.textContent))")] == [["O", "", ""], ["", "X", ""],
                                                                                  ["", "", ""]]
        page.context.close()


def test_task_routes_answering_501_are_absent_and_a_task_is_played_as_linked(site):
    none = httpx2.get(f"{site}/s/{GAME}/tasks", timeout=30)  # openenv 0.10's routes, 501 without tasks
    assert none.status_code == 404 and "offers no Task API" in none.text
    task_page = httpx2.get(f"{site}/s/{HARBOR}/tasks", params={"split": TASKS, "index": 2}, timeout=30).text
    link = re.search(r'href="([^"]*/play\?[^"]*)">Play it in the playground', task_page).group(1)
    assert "split=harbor-org/terminal-tasks" in link.replace("%2F", "/") and "index=2" in link
    play = httpx2.get(site + link.replace("&amp;", "&"), timeout=30).text
    assert f'<option value="{TASKS}" selected>' in play and 'max="2" value="2"' in play
    player = Player(site, HARBOR)
    assert "must be between 0 and 2" in status(player.send(op="reset", split=TASKS, index="42"))
    assert "lists no split" in status(player.send(op="reset", split="nope/nothing", index="0"))
    player.close()


def test_a_failed_check_heals_once_the_server_is_up(site):
    down = httpx2.get(f"{site}/s/{LATE}/play", timeout=30).text
    assert "The playground needs the Space running" in down and "ws-connect" not in down
    process, _ = start_server(FRAMES_DIR, port=LATE_PORT, app="app:app")
    try:
        wait_or_fail(lambda: "ws-connect" in httpx2.get(f"{site}/s/{LATE}/play", timeout=30).text,
                     "the playground kept the failed check", 20, every=0.5)
    finally:
        process.terminate()
        process.wait(10)
