"""Rollouts where people look: a task page lists its runs and its twin's (a MiMo row and its Harbor conversion),
the environment page its latest, "Your runs" the visitor's own with filters and Stop; private runs reach only
their owner. Every list says how each run ended in one vocabulary (solved, failed, infrastructure error,
unobserved, stopped) with the reason beside it."""

from __future__ import annotations

import re

import pytest

from rlx.runs.outcome import outcome_of
from tests.conftest import index_now
from tests.runs_fixtures import PROBES, SLEEPER_ALONE, probes_app, probes_folder, probes_worker  # noqa: F401 (fixtures)
from tests.runs_helpers import wait_for
from tests.runs.test_run_pages import OURS, needs_bwrap, post_run, run_id_of

RELEASE = "rlx-examples/mimo-release"
TWIN = "rlx-examples/mimo-release-harbor"
ROW, TWIN_TASK = f"/t/{RELEASE}/music/train/1", f"/t/{TWIN}/music-gk-0812"


def rollout_rows(html: str) -> dict[str, str]:
    """run id -> its row's text as a reader sees it, from the page's rollouts table."""
    start = '<table class="rollouts">'
    table = html.split(start, 1)[1].split("</table>", 1)[0] if start in html else ""
    rows = re.findall(r'<tr class="outcome-[a-z]+">(.*?)</tr>', table, re.S)
    return {re.search(r"/r/([a-z0-9]{12})", r).group(1): " ".join(re.sub(r"<[^>]+>", " ", r).split()) for r in rows}


@pytest.fixture
def mimo_app(app):
    index_now(app, RELEASE)
    index_now(app, TWIN)
    return app


@needs_bwrap
def test_a_task_page_lists_its_runs_and_its_twins_and_private_ones_only_to_their_owner(mimo_app, running_worker):
    someone, owner, stranger = mimo_app.test_client(), mimo_app.test_client(), mimo_app.test_client()
    public_id = run_id_of(post_run(someone, TWIN_TASK, agent="oracle", visibility="public"))
    private_id = run_id_of(post_run(owner, TWIN_TASK, agent="nop", visibility="private"))
    for run_id in (public_id, private_id):
        assert wait_for(mimo_app, run_id).status == "finished"

    for page in (ROW, TWIN_TASK):  # the MiMo row lists its Harbor twin's runs, and the twin its own
        seen = rollout_rows(stranger.get(page).get_data(as_text=True))
        assert list(seen) == [public_id], page  # the private run is its owner's alone
        assert "oracle" in seen[public_id] and "solved" in seen[public_id] and " 1 " in seen[public_id] + " "
    mine = rollout_rows(owner.get(ROW).get_data(as_text=True))
    assert list(mine) == [private_id, public_id]  # newest first
    assert "yours" in mine[private_id] and "nop" in mine[private_id]
    assert owner.get(ROW).headers["Cache-Control"] == "private, no-store"  # no shared cache keeps it
    assert "failed" in mine[private_id] and "reward 0" in mine[private_id]  # the verifier's 0: the agent's failure
    assert f"on {TWIN} · music-gk-0812" in mine[private_id]  # a twin's run says where it ran

    api = stranger.get(f"/api/task/{RELEASE}/music/train/1").get_json()["rollouts"]
    assert [r["id"] for r in api] == [public_id] and api[0]["kind"] == "solved"
    assert all("visitor" not in r for r in api)
    assert list(rollout_rows(stranger.get(f"/d/{TWIN}").get_data(as_text=True))) == [public_id]
    assert list(rollout_rows(owner.get(f"/d/{TWIN}").get_data(as_text=True))) == [private_id, public_id]

    assert list(rollout_rows(owner.get("/runs/mine").get_data(as_text=True))) == [private_id]
    assert list(rollout_rows(owner.get("/runs/mine?outcome=failed&agent=nop").get_data(as_text=True))) == [private_id]
    assert rollout_rows(owner.get("/runs/mine?outcome=solved").get_data(as_text=True)) == {}
    assert "You have not started a rollout" in stranger.get("/runs/mine").get_data(as_text=True)
    bad = owner.get("/runs/mine?outcome=everything")
    assert bad.status_code == 400 and "outcome must be one of" in bad.get_data(as_text=True)
    board = stranger.get(f"/community/{TWIN}").get_data(as_text=True)
    outcomes = board.split('class="leaderboard outcomes-board"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td><td>(\d+)</td><td>(\d+)</td>", outcomes) == [
        ("oracle", "100.0%", "1", "0")]  # the private nop run counts for nobody
    grouped = board.split('class="leaderboard group-board"', 1)[1].split("</table>", 1)[0]
    assert "By category" in board and "<td>music</td><td>oracle</td><td>100.0%</td><td>1</td>" in grouped
    run_page = someone.get(f"/r/{public_id}").get_data(as_text=True)
    assert '<dd class="run-result"><span class="outcome outcome-solved">solved</span>' in run_page


@needs_bwrap
@SLEEPER_ALONE
def test_my_runs_says_unobserved_with_the_reason_and_stops_a_running_run(probes_app, probes_worker):
    probes_app.index_probes()
    client = probes_app.test_client()
    unrewarded = run_id_of(post_run(client, f"/t/{PROBES}/no-reward"))
    assert wait_for(probes_app, unrewarded).status == "finished"
    sleeper = run_id_of(post_run(client, f"/t/{PROBES}/sleeper"))
    wait_for(probes_app, sleeper, done=lambda r: r.status == "running")

    page = client.get("/runs/mine").get_data(as_text=True)
    rows = rollout_rows(page)
    assert "unobserved" in rows[unrewarded] and "without writing a reward" in rows[unrewarded]
    assert f'action="/r/{sleeper}/stop"' in page and f'action="/r/{unrewarded}/stop"' not in page
    stranger = probes_app.test_client().post(f"/r/{sleeper}/stop", data={"back": "mine"}, headers=OURS)
    assert stranger.status_code == 404  # private: not even there for others
    stopped = client.post(f"/r/{sleeper}/stop", data={"back": "mine"}, headers=OURS)
    assert stopped.status_code == 303 and stopped.headers["Location"] == "/runs/mine"
    assert wait_for(probes_app, sleeper).status == "stopped"
    assert "stopped" in rollout_rows(client.get("/runs/mine?outcome=stopped").get_data(as_text=True))[sleeper]


@pytest.mark.parametrize("fields, label, reason", [
    (("finished", True, 1.0, None, "Scored by the task's verifier."), "solved", "reward 1"),
    (("finished", True, 0.25, None, "Scored by the task's verifier."), "failed", "reward 0.25"),
    (("finished", False, None, "RewardFileNotFoundError", "The verifier finished without writing a reward."),
     "unobserved", "The verifier finished without writing a reward."),
    (("finished", False, None, "VerifierTimeoutError", "The verifier ran past its time limit and was stopped."),
     "infrastructure error", "The verifier ran past its time limit"),
    (("failed", False, None, "InfrastructureError", "Infrastructure error: the server's storage is full"),
     "infrastructure error", "storage is full"),
    (("failed", False, None, "EnvironmentStartTimeoutError", "The sandbox took too long to start."),
     "infrastructure error", "The sandbox took too long"),
    (("failed", False, None, "WorkerLost", "The worker running it stopped"), "infrastructure error", "worker"),
    (("stopped", False, None, None, "Stopped by an admin."), "stopped", "Stopped by an admin."),
])
def test_every_way_a_run_ends_has_one_name_and_keeps_its_reason(fields, label, reason):
    ended = outcome_of(*fields)
    assert ended.label == label and reason in ended.reason
    assert ended.counts_for_agent == (label in ("solved", "failed"))  # infrastructure is never the agent's failure
