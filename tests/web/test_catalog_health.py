"""The catalog carries each environment's health: a checked environment's card wears its verdict and the Health
facet finds it; an unchecked one wears nothing and is found under "not checked"."""

from __future__ import annotations

import re
from contextlib import closing

from rlx.runs import health
from rlx.runs.runs_db import connect
from rlx.snapshot.refresh import refresh_catalog

SOUND_ENV, BROKEN_ENV, UNCHECKED_ENV = ("rlx-examples/python-bugfix", "rlx-examples/terminal-basics",
                                        "rlx-examples/science-puzzles")


def keep_check(store, env_id: str, verdicts: dict[str, str], created_at: str = "2026-12-01T10:00:00Z",
               revision: str = "rev1") -> None:
    """What a health check leaves in the runs index when its batch ends: the check, and each task's verdict."""
    with closing(connect(store)) as db:
        db.executescript(health.SCHEMA)
        db.execute("INSERT INTO health_checks VALUES (?, ?, ?, ?, '{}')",
                   (env_id, revision, f"b-{env_id}-{revision}", created_at))
        db.executemany("INSERT INTO health_verdicts VALUES (?, ?, ?, ?, 'seen')",
                       [(env_id, revision, ref, verdict) for ref, verdict in verdicts.items()])


def card_of(html: str, env_id: str) -> str:
    found = re.search(r'<li class="card[^"]*">(?:(?!</li>).)*?<span class="card-id">' + re.escape(env_id)
                      + r'</span>.*?</li>', html, re.S)
    assert found, f"no card of {env_id}"
    return found.group(0)


def facet_values(html: str) -> dict[str, int]:
    group = re.search(r"<summary>Health</summary>(.*?)</details>", html, re.S)
    return {} if group is None else {name: int(n.replace(",", "")) for name, n in re.findall(
        r'<span>([^<]+)</span><span class="count">([\d,]+)</span>', group.group(1))}


def test_a_checked_environment_wears_its_verdict_and_the_health_facet_finds_it(indexed_app):
    store = indexed_app.extensions["rlx.store"]
    keep_check(store, SOUND_ENV, {"a": "sound", "b": "sound", "c": "cannot run here"})
    # Two tasks accept doing nothing, one repeats badly: the environment's verdict is its commonest problem.
    keep_check(store, BROKEN_ENV, {"a": "nop passes", "b": "nop passes", "c": "flaky", "d": "sound"})
    # An older check of the same environment is replaced by the latest one.
    keep_check(store, BROKEN_ENV, {"a": "sound", "b": "sound"}, created_at="2026-11-01T10:00:00Z", revision="rev0")
    with indexed_app.app_context():
        summary = refresh_catalog(indexed_app.extensions["rlx.source"], store, indexed_app.config["RLX"].cache_dir,
                                  max_builds=0)
    assert summary["published"]
    client = indexed_app.test_client()

    home = client.get("/").get_data(as_text=True)
    sound_card, broken_card, unchecked_card = (card_of(home, e) for e in (SOUND_ENV, BROKEN_ENV, UNCHECKED_ENV))
    assert '<span class="card-health health-sound"' in sound_card and ">sound</span>" in sound_card
    assert "cannot run here 1" in sound_card  # the counts behind the badge, on hover
    assert ">nop passes</span>" in broken_card
    assert "card-health" not in unchecked_card  # not checked: no badge, on every card alike
    shown = facet_values(home)
    total = client.get("/api/search").get_json()["total"]
    assert shown == {"sound": 1, "nop passes": 1, "not checked": total - 2}

    found = client.get("/?health=sound").get_data(as_text=True)
    assert re.findall(r'<span class="card-id">([^<]+)</span>', found.split('id="results"')[1]) == [SOUND_ENV]
    answer = client.get("/api/search?health=nop passes").get_json()
    assert [c["id"] for c in answer["cards"]] == [BROKEN_ENV]
    assert answer["cards"][0]["health"] == {"verdict": "nop passes",
                                            "counts": {"sound": 1, "nop passes": 2, "flaky": 1}}
    unchecked = client.get("/api/search?health=not checked&size=100").get_json()
    ids = {c["id"] for c in unchecked["cards"]}
    assert UNCHECKED_ENV in ids and SOUND_ENV not in ids and BROKEN_ENV not in ids
    assert all(c["health"] is None for c in unchecked["cards"])
    # With a kind chosen, the facet counts what that kind leaves.
    assert facet_values(client.get("/?kind=harbor").get_data(as_text=True))["sound"] == 1

    assert client.get("/?health=healthy").status_code == 400
    refused = client.get("/api/search?health=healthy")
    assert refused.status_code == 400 and "health must be one of" in refused.get_json()["error"].lower()


def test_an_environment_whose_check_found_nothing_is_not_checked_in_the_catalog(indexed_app):
    store = indexed_app.extensions["rlx.store"]
    keep_check(store, SOUND_ENV, {"a": "not checked", "b": "not checked"})  # stopped before any task ended
    with indexed_app.app_context():
        refresh_catalog(indexed_app.extensions["rlx.source"], store, indexed_app.config["RLX"].cache_dir,
                        max_builds=0)
    home = indexed_app.test_client().get("/").get_data(as_text=True)
    assert "card-health" not in card_of(home, SOUND_ENV) and facet_values(home) == {}
