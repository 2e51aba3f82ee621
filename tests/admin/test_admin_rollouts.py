"""The admin's Rollouts: every run with who ran it (a Hub handle, or an anonymous session), filtered and paged with
bounded numbers; taking a public run off community hides it from everyone but its owner, at once and reversibly.
Who ran a run never reaches the public app's answers."""

from __future__ import annotations

import json
import re

import pytest

from tests.runs_helpers import SCIENCE
from tests.admin.test_admin import CAROL, DAVE, ORIGIN, apps, people, signed_in  # noqa: F401 (fixtures)
from tests.processes import wait_until
from tests.runs.test_community_compare import OTHER_REF, REF, write_run

ALICE = "hf_alice"
HANDLE = "alice-owner"  # who signs in with ALICE
ANON = "s:" + "c" * 32  # an anonymous browser session's owner id, as records keep it


@pytest.fixture
def alice(people):
    people.add_token(ALICE, HANDLE, orgs=())
    return people


def rows_of(html: str) -> dict[str, list[str]]:
    """The admin table: run id -> its cells as text."""
    found = {}
    for run_id, body in re.findall(r'<tr id="run-([a-z0-9]{12})">(.*?)</tr>', html, re.S):
        found[run_id] = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", body, re.S)]
    return found


def test_each_rollout_is_listed_with_who_ran_it_its_task_agent_model_status_and_reward(apps, alice):
    public, admin = apps
    mine = write_run(public, visitor=f"hf:{HANDLE}", reward=0.75, model="gpt-test")
    anon = write_run(public, visitor=ANON, visibility="private", ref=OTHER_REF, status="failed", reward=None,
                     agent="oracle", model=None)
    cli = write_run(public, visitor=None, agent="nop", model=None, reward=0.0)
    rows = rows_of(signed_in(admin, CAROL).get("/admin/rollouts").text)
    assert rows[mine.id][1:8] == [HANDLE, f"{SCIENCE} · {REF}", "terminus-2", "gpt-test", "finished", "0.750",
                                  "public"]
    assert rows[anon.id][1:8] == ["anonymous session", f"{SCIENCE} · {OTHER_REF}", "oracle", "—", "failed",
                                  "not scored", "private"]
    assert rows[cli.id][1] == "the server (CLI)" and rows[cli.id][6] == "0.000"
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", rows[mine.id][0])
    assert list(rows) == [cli.id, anon.id, mine.id]  # newest first


@pytest.mark.parametrize("query, expected", [("who=alice-owner", {"mine"}), ("who=@alice-owner", {"mine"}),
                                             ("who=anonymous", {"anon"}), ("status=failed", {"anon"}),
                                             (f"task={OTHER_REF}", {"anon"}), ("agent=nop", {"cli"}),
                                             ("model=gpt-test", {"mine"}), ("visibility=private", {"anon"}),
                                             (f"env={SCIENCE}&agent=terminus-2", {"mine"}), ("who=nobody", set())])
def test_filters_narrow_the_list(apps, alice, query, expected):
    public, admin = apps
    runs = {"mine": write_run(public, visitor=f"hf:{HANDLE}"),
            "anon": write_run(public, visitor=ANON, visibility="private", ref=OTHER_REF, status="failed",
                              reward=None, agent="oracle", model=None),
            "cli": write_run(public, visitor=None, agent="nop", model=None)}
    shown = set(rows_of(signed_in(admin, CAROL).get(f"/admin/rollouts?{query}").text))
    assert shown == {runs[name].id for name in expected}


def test_pages_follow_each_other_without_gaps_or_repeats(apps):
    from rlx.runs import runs_db
    from rlx.runs.record import RunRecord, new_run_id

    public, admin = apps
    store = public.extensions["rlx.store"]
    made = [RunRecord(id=new_run_id(), env_id=SCIENCE, ref=REF, agent="nop", visitor=ANON, status="finished",
                      created_at=f"2026-11-30T10:00:{i // 3:02d}.000Z") for i in range(60)]  # ties on the time
    runs_db.upsert_many(store, made)
    carol = signed_in(admin, CAROL)
    seen, url, pages = [], "/admin/rollouts?who=anonymous&size=25", 0
    while url and pages < 10:
        html = carol.get(url).text
        seen += list(rows_of(html))
        older = re.search(r'<a rel="next" href="([^"]+)"', html)
        url = older and older.group(1).replace("&amp;", "&")
        pages += 1
    assert pages == 3 and len(seen) == 60 and set(seen) == {r.id for r in made}
    expected = [r.id for r in sorted(made, key=lambda r: (r.created_at, r.id), reverse=True)]
    assert seen == expected


@pytest.mark.parametrize("query", ["size=99999999999999999999", "size=26", "size=-1", "before=2026-11-30",
                                   "before=" + "9" * 500, "who=<script>alert(1)</script>", "status=exploded",
                                   "visibility=everyone", "env=../../etc", "task=" + "a" * 300])
def test_a_bad_filter_or_page_is_a_400_with_a_sentence(apps, query):
    _, admin = apps
    response = signed_in(admin, CAROL).get(f"/admin/rollouts?{query}")
    assert response.status_code == 400 and "<script>alert" not in response.text
    assert re.search(r"`\w+` (is|must)", response.text)


def community_sees(client, run_id) -> dict[str, bool]:
    """Where an explorer visitor finds the run: each community surface, its page, its JSON and Compare."""
    home = client.get("/community").text
    env_page = client.get(f"/community/{SCIENCE}").text
    return {"community": run_id in home, "env": run_id in env_page,
            "page": client.get(f"/r/{run_id}").status_code == 200,
            "json": client.get(f"/api/runs/{run_id}").status_code == 200}


def board_runs(client) -> str | None:
    match = re.search(r'<table class="leaderboard">.*?<tbody><tr><td>1</td><td>[^<]*</td><td>[\d.]+</td><td>(\d+)',
                      client.get(f"/community/{SCIENCE}").text, re.S)
    return match and match.group(1)


def test_an_admin_takes_a_rollout_off_community_for_everyone_but_its_owner_and_puts_it_back(apps, alice):
    public, admin = apps
    taken = write_run(public, visitor=f"hf:{HANDLE}", steps=("look",))
    other = write_run(public, visitor=ANON, steps=("look",))
    stranger, owner, carol = public.test_client(), signed_in(public, ALICE), signed_in(admin, CAROL)
    compare = f"/compare?runs={taken.id},{other.id}"
    assert community_sees(stranger, taken.id) == dict.fromkeys(("community", "env", "page", "json"), True)
    assert board_runs(stranger) == "2" and stranger.get(compare).status_code == 200

    response = carol.post("/admin/rollouts", data={"run": taken.id, "action": "withdraw",
                                                   "next": "/admin/rollouts?who=alice-owner"}, headers=ORIGIN)
    assert response.status_code == 303 and response.headers["Location"] == "/admin/rollouts?who=alice-owner"
    assert wait_until(lambda: not any(community_sees(stranger, taken.id).values()), timeout=5)
    assert board_runs(stranger) == "1" and stranger.get(compare).status_code == 404
    assert other.id in stranger.get("/community").text
    mine = owner.get(f"/r/{taken.id}")
    assert mine.status_code == 200 and "took this rollout off the community pages" in mine.text
    assert owner.get(compare).status_code == 200
    assert rows_of(carol.get("/admin/rollouts").text)[taken.id][7] == "withdrawn"

    assert carol.post("/admin/rollouts", data={"run": taken.id, "action": "restore"},
                      headers=ORIGIN).status_code == 303
    assert wait_until(lambda: all(community_sees(stranger, taken.id).values()), timeout=5)
    assert board_runs(stranger) == "2"
    audit = admin.extensions["rlx.store"].settings_path.parent / "audit.jsonl"
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(e["who"], e["action"], e["run"]) for e in lines] == [("carol", "rollout.withdraw", taken.id),
                                                                  ("carol", "rollout.restore", taken.id)]


@pytest.mark.parametrize("case", ["no-origin", "foreign-origin", "non-member", "running", "private", "unknown",
                                  "bad-id", "bad-action", "restore-public"])
def test_a_takedown_that_may_not_happen_changes_nothing(apps, alice, case):
    public, admin = apps
    run = write_run(public, visitor=f"hf:{HANDLE}", status="running" if case == "running" else "finished",
                    visibility="private" if case == "private" else "public")
    client = signed_in(admin, DAVE if case == "non-member" else CAROL)
    form = {"run": {"unknown": "zzzzzzzzzzzz", "bad-id": "../../x"}.get(case, run.id),
            "action": {"bad-action": "delete", "restore-public": "restore"}.get(case, "withdraw")}
    headers = {"no-origin": {}, "foreign-origin": {"Origin": "https://evil.example"}}.get(case, ORIGIN)
    response = client.post("/admin/rollouts", data=form, headers=headers)
    expected = {"no-origin": 403, "foreign-origin": 403, "non-member": 403, "running": 409, "private": 409,
                "unknown": 404, "bad-id": 400, "bad-action": 400, "restore-public": 409}[case]
    assert response.status_code == expected and len(response.text.strip()) > 20
    from rlx.runs import record

    assert record.load(public.extensions["rlx.store"], run.id).visibility == run.visibility
    assert not (admin.extensions["rlx.store"].settings_path.parent / "audit.jsonl").exists()


def test_who_ran_a_public_rollout_never_reaches_the_explorers_answers(apps, alice):
    public, _ = apps
    run = write_run(public, visitor=f"hf:{HANDLE}", steps=("look",))
    other = write_run(public, visitor=ANON)
    stranger = public.test_client()
    for url in ("/community", f"/community/{SCIENCE}", f"/r/{run.id}", f"/api/runs/{run.id}",
                f"/r/{run.id}/events", f"/compare?runs={run.id},{other.id}"):
        response = stranger.get(url)
        assert response.status_code == 200, url
        assert HANDLE not in response.get_data(as_text=True) and "hf:" not in response.get_data(as_text=True), url
