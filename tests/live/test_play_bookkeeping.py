"""What a playing session tells the Space's line (rlx/live/shared_episode.py, rlx/live/seats.py), on a real Redis:
waiters read it to know when the server frees up, so it must never say the server is free while it is held; and a
player's steps must not each pay a Redis write for it."""

from __future__ import annotations

import time
from types import SimpleNamespace

from rlx.live.seats import Line
from rlx.live.shared_episode import HOLD_SLACK_S, SharedEpisode

IDLE_S = 30.0
SPACE = "acme/one-seat"


def _held_until(redis_client, session: str) -> float:
    score = redis_client.zscore(f"rlx:play:seats:{SPACE}:held", session)
    assert score is not None, "the session is not in the line's holders"
    return score


def _playing(redis_client) -> SharedEpisode:
    shared = SharedEpisode("http://127.0.0.1:9", Line(redis_client, SPACE, "player"), idle_s=IDLE_S)
    shared.episode = SimpleNamespace(closed=False, close=lambda: None)  # an open episode on the server
    shared._held_at = time.time()
    shared.line.hold(time.time() + IDLE_S)
    return shared


def test_a_moving_player_is_never_told_free_early_and_writes_about_once_a_second(redis_client):
    shared = _playing(redis_client)
    told = set()
    started = time.monotonic()
    while time.monotonic() - started < 2.5:
        assert shared.run(lambda episode: "moved") == "moved"
        truth = time.time() + IDLE_S  # the latest this session gives the server back, after this move
        held = _held_until(redis_client, "player")
        assert held >= truth - 0.01, "a waiter would be told the server frees up before it does"
        assert held <= truth + 2 * HOLD_SLACK_S + 0.01
        told.add(held)
        time.sleep(0.005)
    assert len(told) <= 2.5 / HOLD_SLACK_S + 2  # a few hundred moves, a write about every second


def test_once_someone_waits_the_line_is_told_the_end_of_the_turn_at_the_next_move(redis_client):
    shared = _playing(redis_client)
    shared.turn_s = 5.0
    shared.run(lambda episode: "moved")
    Line(redis_client, SPACE, "waiter").join()
    shared.run(lambda episode: "moved")
    assert shared.someone_waits() and "Someone is waiting for this server" in shared.turn_words()
    assert _held_until(redis_client, "player") <= shared.turn_ends + 2 * HOLD_SLACK_S
