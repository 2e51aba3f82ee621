"""A search card calls a Space "OpenEnv Space" only while its last check (in Redis) is fresh and found the protocol.
Each process remembers what Redis said for a few seconds: a check written elsewhere shows once that has passed, a
claim still ends the moment its check turns an hour old, and a check this process made shows at once."""

import json
import time

import pytest

from rlx.live import space_checks

ECHO = "rlx-examples/echo-env"


def echo_card(client) -> dict:
    return next(c for c in client.get("/api/search").get_json()["cards"] if c["key"] == ECHO)


class Clock:
    """The checks' clocks (wall and monotonic), stopped: they move only when the test moves them."""

    def __init__(self):
        self.wall, self.monotonic, self.ahead = time.time(), time.monotonic(), 0.0

    def now(self) -> float:
        return self.wall + self.ahead


@pytest.fixture
def clock(monkeypatch):
    stopped = Clock()
    monkeypatch.setattr(space_checks.time, "time", stopped.now)
    monkeypatch.setattr(space_checks.time, "monotonic", lambda: stopped.monotonic + stopped.ahead)
    return stopped


def store_check(redis_client, checked_ts: float, ok: bool = True) -> None:
    report = {"ok": ok, "openenv": ok, "checked_ts": checked_ts, "problems": {}}
    redis_client.set(f"rlx:live:check:{ECHO}", json.dumps(report))


def test_a_check_written_by_another_process_shows_once_the_remembered_answer_is_old(client, redis_client, clock):
    assert echo_card(client)["verified"] is False
    store_check(redis_client, clock.now())
    assert echo_card(client)["verified"] is False  # remembered from a moment ago
    clock.ahead = space_checks.CLAIMS_REUSE_S
    card = echo_card(client)
    assert card["verified"] is True and card["kind_label"] == "OpenEnv Space"
    store_check(redis_client, clock.now(), ok=False)  # a failed recheck
    clock.ahead = 2 * space_checks.CLAIMS_REUSE_S
    assert echo_card(client)["verified"] is False


def test_a_remembered_claim_ends_when_its_check_turns_an_hour_old(client, redis_client, clock):
    store_check(redis_client, clock.now() - space_checks.FRESH_S + 2)
    assert echo_card(client)["verified"] is True
    clock.ahead = 3  # within the time answers are reused, past the check's hour
    card = echo_card(client)
    assert card["verified"] is False and card["kind_label"] == "Space · declares OpenEnv"
