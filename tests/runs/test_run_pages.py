"""The run form on a task page, the POST that starts a rollout, the run page /r/<id> and its live stream."""

from __future__ import annotations

import html as html_text
import re
import shutil

import pytest

from rlx.runs import record, runs_db
from rlx.runs.models import secret_key
from tests.runs_helpers import SCIENCE, wait_for

TASK = f"/t/{SCIENCE}/chemistry/molar-mass-table"
OURS = {"Origin": "http://localhost"}  # our own pages send it with every form post
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")


def post_run(client, path=TASK, **fields):
    form = {"option": "local", "agent": "oracle", "visibility": "private", "model": "", "endpoint": "",
            "api_key": "", **fields}
    return client.post(f"{path}/run", data={k: v for k, v in form.items() if v is not None},
                       headers=OURS)


def run_id_of(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    match = re.fullmatch(r"/r/([a-z0-9]{12})", response.headers["Location"])
    assert match, response.headers["Location"]
    return match.group(1)


def trajectory_lines(html: str) -> list[str]:
    """The run page's trajectory entries as a visitor reads them, tags dropped."""
    items = re.findall(r'<li class="run-ev[^"]*">(.*?)</li>', html, re.S)
    return [" ".join(html_text.unescape(re.sub(r"<[^>]+>", "", item)).split()) for item in items]


def stored_runs(app) -> list:
    with app.app_context():
        return runs_db.with_status(app.extensions["rlx.store"], ("queued", "running", "finished", "failed", "stopped"))


def test_the_task_page_offers_the_run_form_and_says_what_the_model_agents_need(indexed_client):
    html = indexed_client.get(TASK).get_data(as_text=True)
    assert f'action="{TASK}/run"' in html
    for agent in ("oracle", "nop", "terminus-2"):
        assert f'<option value="{agent}"' in html
    # the model fields are there for the agents that use a model (shown when one is picked), and said to be ignored
    # by the two that do not
    assert re.search(r'<label data-for-agent="[^"]*terminus-2[^"]*">Model', html)
    assert "both ignore the model fields" in html


def test_a_task_the_sandbox_cannot_replay_says_why_instead_of_a_form(indexed_client):
    html = indexed_client.get(f"/t/{SCIENCE}/statistics/sensor-summary").get_data(as_text=True)
    assert "it cannot run here" in html and "earlier build stage" in html
    assert 'action="/t/rlx-examples/science-puzzles/statistics/sensor-summary/run"' not in html


@needs_bwrap
def test_oracle_from_the_form_to_its_reward_on_the_run_page(indexed_app, running_worker):
    client = indexed_app.test_client()
    run_id = run_id_of(post_run(client))
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert 'sse-connect="/r/' in page and "Stop" in page
    stream = client.get(f"/r/{run_id}/events")
    body = b"".join(stream.response).decode()  # the stream ends with the run
    assert "event: end" in body
    assert "The agent started" in body and "The verifier started" in body
    live_lines = trajectory_lines(body.replace("data: ", ""))  # appended over SSE, before the stream ends
    assert live_lines[-3:] == ["The verifier started", "The verifier gave reward 1",
                               "The run finished · Scored by the task's verifier."]
    final = body.rsplit("event: status", 1)[1]
    assert 'class="run-reward">1<' in final.replace("data: ", "")
    assert f'<a class="compare-with" href="/compare?runs={run_id}">' in final  # no reload needed to compare
    done = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert 'class="run-reward">1<' in done and "sse-connect" not in done and "Finished" in done
    assert trajectory_lines(done)[-2:] == ["The verifier gave reward 1",
                                           "The run finished · Scored by the task's verifier."]  # on a reload
    assert "<dt>Harbor</dt><dd>0.25" in done and "<dt>Task revision</dt>" in done
    assert "The verifier's output</h3><pre class=\"run-verifier\" tabindex=\"0\">PASS" in done
    assert "The oracle runs the task's reference solution" in done  # its output is the answer: not shown


def test_a_private_run_is_not_shown_to_another_browser(indexed_app):
    owner = indexed_app.test_client()
    run_id = run_id_of(post_run(owner))
    assert owner.get(f"/r/{run_id}").status_code == 200
    assert indexed_app.test_client().get(f"/r/{run_id}").status_code == 404


@pytest.mark.parametrize("forged, sentence", [
    ({"agent": "hal-9000"}, "Agent must be one of"),
    ({"visibility": "everyone"}, "must be one of"),
    ({"option": "hf-sandbox"}, "no run option"),
    ({"timeout": "99999"}, "does not take"),
    ({"agent": "terminus-2"}, "terminus-2 needs a model"),
    ({"agent": "terminus-2", "model": "m", "endpoint": "http://127.0.0.1:9/v1"}, "must use https"),
    ({"agent": "terminus-2", "model": "m", "endpoint": "https://10.1.2.3/v1"}, "private or local address"),
    ({"model": "x" * 300}, "longer than"),
])
def test_forged_fields_are_refused_and_start_nothing(indexed_app, forged, sentence):
    client = indexed_app.test_client()
    response = post_run(client, **forged)
    assert response.status_code == 400
    assert sentence in response.get_data(as_text=True)
    assert stored_runs(indexed_app) == []


def test_the_batch_form_shows_where_some_matching_task_runs_here_and_only_there(indexed_client):
    env = f"/d/{SCIENCE}"
    assert "Start batch" in indexed_client.get(env).get_data(as_text=True)
    # sensor-summary alone: its Dockerfile has a step the sandbox cannot replay, so a batch of it would only fail
    alone = html_text.unescape(indexed_client.get(env, query_string={"q": "sensor-summary"}).get_data(as_text=True))
    assert "sensor-summary" in alone and "Start batch" not in alone
    assert "None of these tasks can run in this machine's sandbox" in alone


def test_model_fields_left_filled_for_oracle_are_ignored_and_keep_nothing(indexed_app, redis_client):
    """With JS off every model field stays on screen: one filled, then oracle chosen, still starts oracle."""
    client = indexed_app.test_client()
    run_id = run_id_of(post_run(client, model="gpt-x", endpoint="https://93.184.216.34/v1", api_key="sk-typed"))
    with indexed_app.app_context():
        run = record.load(indexed_app.extensions["rlx.store"], run_id)
    assert run.agent == "oracle" and run.model is None
    assert redis_client.get(secret_key(run_id)) is None  # the typed key went nowhere
    page = client.get(TASK).get_data(as_text=True)
    assert "both ignore the model fields" in page  # the form says so before anyone posts it


def test_an_option_that_cannot_run_here_is_refused(indexed_app):
    response = post_run(indexed_app.test_client(), path=f"/t/{SCIENCE}/statistics/sensor-summary")
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and "cannot run on" in text and "earlier build stage" in text
    assert stored_runs(indexed_app) == []


def test_a_cross_site_post_is_refused(indexed_app):
    client = indexed_app.test_client()
    response = client.post(f"{TASK}/run", data={"option": "local", "agent": "oracle", "visibility": "private"},
                           headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403 and stored_runs(indexed_app) == []


def test_active_rollouts_are_capped_per_visitor_and_overall(indexed_app):
    indexed_app.config.update(RLX_MAX_RUNS_PER_VISITOR=1, RLX_MAX_ACTIVE_RUNS=2)
    first, second = indexed_app.test_client(), indexed_app.test_client()
    second.environ_base["REMOTE_ADDR"] = "192.0.2.2"  # another person: the cap counts addresses, not cookies
    run_id_of(post_run(first))
    again = post_run(first)
    assert again.status_code == 429 and again.headers["Retry-After"]
    assert "the limit per visitor" in again.get_data(as_text=True)
    run_id_of(post_run(second))
    third = indexed_app.test_client()
    third.environ_base["REMOTE_ADDR"] = "192.0.2.3"
    third = post_run(third)
    assert third.status_code == 429 and "its limit" in third.get_data(as_text=True)
    assert len(stored_runs(indexed_app)) == 2


def test_stopping_a_queued_run(indexed_app):
    client = indexed_app.test_client()
    run_id = run_id_of(post_run(client))
    queued = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert '<noscript><meta http-equiv="refresh"' in queued and "Queued" in queued  # JS off: it refreshes itself
    stranger = indexed_app.test_client().post(f"/r/{run_id}/stop", headers=OURS)
    assert stranger.status_code == 404  # not yours, not even visible
    response = client.post(f"/r/{run_id}/stop", headers=OURS)
    assert response.status_code == 303
    run = wait_for(indexed_app, run_id)
    assert run.status == "stopped" and run.reward is None
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "Stopped" in page and "Not scored" in page
    with indexed_app.app_context():  # its slot is free again
        assert record.load(indexed_app.extensions["rlx.store"], run_id).status == "stopped"
    run_id_of(post_run(client))
