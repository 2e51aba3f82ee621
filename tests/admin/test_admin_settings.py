"""Every rollout setting the admin saves is applied by the explorer within seconds, on the explorer's own pages and
answers: the switch (forms replaced by a sentence, POSTs 503), the hourly limit per visitor (429 with
Retry-After, counted per account, else per address, whatever cookie the browser sends), the agent allow-list; and
collections, saved in the admin, filter the explorer's search."""

from __future__ import annotations

from rlx.runs import agents

import re

import pytest

from rlx.runs.rollout_rules import SWITCHED_OFF
from tests.conftest import index_now
from tests.runs_helpers import SCIENCE
from tests.admin.test_admin import CAROL, ORIGIN, apps, people, signed_in  # noqa: F401 (fixtures)
from tests.processes import wait_until
from tests.runs.test_community_compare import REF

ALICE, BOB = "hf_alice_runs", "hf_bob_runs"
TASK = f"/t/{SCIENCE}/{REF}"
ENV = f"/d/{SCIENCE}"


@pytest.fixture
def explorer_apps(apps, people):
    public, admin = apps
    people.add_token(ALICE, "alice-runs")
    people.add_token(BOB, "bob-runs")
    public.config["RLX_MAX_RUNS_PER_VISITOR"] = 50  # only the admin's hourly limit is under test here
    index_now(public, SCIENCE)
    return public, signed_in(admin, CAROL)


def save(carol, enabled=True, per_hour=10, agents=""):
    form = {"per_visitor_per_hour": str(per_hour), "agents": agents, **({"enabled": "on"} if enabled else {})}
    assert carol.post("/admin/settings", data=form, headers=ORIGIN).status_code == 303


def run(client, agent="oracle"):
    return client.post(f"{TASK}/run", data={"option": "local", "agent": agent, "visibility": "private"},
                       headers=ORIGIN)


def batch(client, agent="oracle"):
    return client.post(f"{ENV}/batch", data={"agent": agent, "visibility": "private", "cap": "1", "q": "molar"},
                       headers=ORIGIN)


def agent_choices(html: str) -> list[str]:
    """The agents one can pick (those this host cannot run are listed disabled, and are not choices)."""
    select = re.search(r'<select name="agent">(.*?)</select>', html, re.S)
    return re.findall(r'<option value="([^"]+)"(?![^>]*disabled)', select.group(1)) if select else []


def test_switching_rollouts_off_disables_the_forms_and_refuses_runs_and_batches(explorer_apps):
    public, carol = explorer_apps
    visitor = public.test_client()
    assert 'class="run-form"' in visitor.get(TASK).text
    save(carol, enabled=False)

    assert wait_until(lambda: SWITCHED_OFF in visitor.get(TASK).text)
    page = visitor.get(TASK).text
    assert 'class="run-form"' not in page
    assert 'class="batch-form"' not in visitor.get(ENV).text and SWITCHED_OFF in visitor.get(ENV).text
    for answer in (run(visitor), batch(visitor)):
        assert answer.status_code == 503 and int(answer.headers["Retry-After"]) > 0
        assert "switched off" in answer.text
    assert not list(public.extensions["rlx.store"].runs_dir.glob("*/run.json"))  # nothing was recorded

    save(carol, enabled=True)
    assert wait_until(lambda: 'class="run-form"' in visitor.get(TASK).text)
    assert run(visitor).status_code == 303


def test_the_hourly_limit_is_counted_per_account_else_per_address(explorer_apps):
    public, carol = explorer_apps
    save(carol, per_hour=2)
    first = public.test_client()
    assert [run(first).status_code for _ in range(2)] == [303, 303]
    over = run(first)
    assert over.status_code == 429 and 0 < int(over.headers["Retry-After"]) <= 3600
    assert "2 rollouts in the last hour" in over.text
    fresh_cookie = public.test_client()  # the same address with a new session cookie: still counted
    assert run(fresh_cookie).status_code == 429
    assert batch(fresh_cookie).status_code == 429

    alice = signed_in(public, ALICE)  # an account has its own count, whatever the address
    assert [run(alice).status_code for _ in range(2)] == [303, 303]
    assert run(alice).status_code == 429
    assert run(signed_in(public, BOB)).status_code == 303

    save(carol, per_hour=0)
    assert wait_until(lambda: run(signed_in(public, BOB)).status_code == 429)


def test_only_the_agents_the_admin_allows_are_offered_and_accepted(explorer_apps):
    public, carol = explorer_apps
    visitor = public.test_client()
    offered = agent_choices(visitor.get(TASK).text)  # and the installed agents, where `make agents` ran
    assert offered[:3] == ["oracle", "nop", "terminus-2"] and set(offered[3:]) <= set(agents.NAMES[3:])
    save(carol, agents="nop")
    assert wait_until(lambda: agent_choices(visitor.get(TASK).text) == ["nop"])
    assert agent_choices(visitor.get(ENV).text) == ["nop"]
    refused = run(visitor, "oracle")
    assert refused.status_code == 400 and "nop" in refused.text
    assert batch(visitor, "oracle").status_code == 400
    assert run(visitor, "nop").status_code == 303


def test_a_collection_saved_in_the_admin_filters_the_explorers_search(explorer_apps):
    public, carol = explorer_apps
    explorer = public.test_client()
    assert carol.post("/admin/collections", data={"key": "picks", "title": "Our picks", "items": SCIENCE},
                      headers=ORIGIN).status_code == 303
    assert wait_until(lambda: [c["id"] for c in explorer.get("/api/search?collection=picks").json["cards"]]
                      == [SCIENCE])
    assert "Our picks" in explorer.get("/").text
