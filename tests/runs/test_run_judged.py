"""A model-graded task end to end: the MiMo General twin's verifier, in the local sandbox, asks the judge the visitor
picked (the model stand-in, scripted to answer the rubric's scores) through the run's judge relay, and the reward
is the rubric's weighted sum of those scores; the calls are counted on the record and the run page; the key never
leaves the relay; a judge outside the admin's pool is refused before anything starts."""

from __future__ import annotations

import json
import shutil

import pytest

from rlx import create_app
from rlx.runs import batch as batches
from tests.conftest import index_now
from tests.runs.test_run_pages import post_run, run_id_of
from tests.runs_fixtures import start_worker
from tests.runs_helpers import wait_for
from tests.stand_ins.model import ModelStandIn, action

TWIN = "rlx-examples/mimo-release-harbor"
GENERAL = f"/t/{TWIN}/general-s3k-1001"
KEY = "sk-judge-NEVERSTORED-0123456789abcdef"
JUDGE = "openai/gpt-oss-120b"  # the first of the default pool
# The rubric (tests/rubric.json): c1 judged, weight 3; c2 judged, weight 2; c3 a code check (the file), weight 1.
VERDICT = {"results": {"c1": {"score": 1, "why": "all three listed"}, "c2": {"score": 0, "why": "totals off"}}}

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)")


@pytest.fixture
def judge():
    stand_in = ModelStandIn([VERDICT], key=KEY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def judged_app(make_config, judge):
    app = create_app(make_config(RLX_JUDGE_ENDPOINT=judge.url, RLX_JUDGE_KEY=KEY))
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TWIN)
    return app


@pytest.fixture
def judged_worker(judged_app, redis_client, judge):
    process = start_worker(judged_app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1",
                                                      "RLX_JUDGE_ENDPOINT": judge.url, "RLX_JUDGE_KEY": KEY})
    yield process
    process.terminate()
    process.wait(15)


def _files_holding(folder, secret: str) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_the_general_twin_gets_its_reward_from_the_judge_the_visitor_picked(judged_app, judged_worker, judge):
    client = judged_app.test_client()
    form = client.get(GENERAL).get_data(as_text=True)
    assert '<select name="judge">' in form and f'<option value="{JUDGE}" selected>' in form
    run_id = run_id_of(post_run(client, path=GENERAL, agent="oracle", judge=JUDGE))
    run = wait_for(judged_app, run_id, timeout=180)
    assert run.status == "finished", run.outcome
    assert run.rewards == {"reward": pytest.approx(4 / 6, abs=1e-4)}  # (3·1 + 2·0 + 1·1) / 6
    assert run.judge == JUDGE and run.judge_calls == 2  # one call per judged check
    calls = [r for r in judge.requests if r["path"].endswith("/chat/completions")]
    assert len(calls) == 2
    assert all(c["body"]["model"] == JUDGE and c["authorization"] == f"Bearer {KEY}" for c in calls)
    asked = [c["body"]["messages"][-1]["content"] for c in calls]
    assert "Checkpoint c1" in asked[0] and "Checkpoint c2" in asked[1]
    assert all("| Kettle & Co | 3 | 950.00 |" in a for a in asked)  # the oracle's report, as the judge read it
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    # no published price for this judge on an endpoint that is not the router: its cost, and the run's, unknown
    assert f'<dt>Judge</dt><dd class="run-judge">{JUDGE} · 2 calls · cost unknown</dd>' in page
    assert run.usage["judge_input_tokens"] == 200 and run.usage["judge_output_tokens"] == 100  # 100 + 50 a call
    assert run.usage["cost"] == "unknown" and "cost_usd" not in run.usage
    assert 'class="run-reward">0.6667<' in page
    assert "c2 (llm_judge, weight 2): 0 totals off" in page  # the verifier's output says what the judge said
    assert client.get(f"/api/runs/{run_id}").get_json()["judge_calls"] == 2
    assert _files_holding(judged_app.config["RLX"].storage_dir, KEY) == []


# Dollars per million tokens, as Inference Providers' router lists them for the judge.
JUDGE_PRICES = [{"provider": "novita", "pricing": {"input": 30, "output": 63}},
                {"provider": "cerebras", "pricing": {"input": 0.5, "output": 1.5}}]


def test_a_judge_on_the_router_is_priced_at_the_provider_that_served_it_and_counts_in_the_runs_cost(
        make_config, redis_client):
    """The operator's judge is Inference Providers' router: each call is priced from the router's own list at the
    provider its answer named, and the run's cost (what a cost per solved task sums) includes the judge's."""
    router = ModelStandIn([VERDICT], key=KEY, model=JUDGE, router_providers=JUDGE_PRICES, serves="novita").start()
    env = {"RLX_JUDGE_ENDPOINT": router.url, "RLX_JUDGE_KEY": KEY, "HF_ROUTER_URL": router.url}
    app = create_app(make_config(**env))
    app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    index_now(app, TWIN)
    worker = start_worker(app, redis_client, {"RLX_ALLOW_LOOPBACK_MODELS": "1", **env})
    try:
        client = app.test_client()
        run = wait_for(app, run_id_of(post_run(client, path=GENERAL, agent="oracle", judge=JUDGE)), timeout=180)
    finally:
        worker.terminate()
        worker.wait(15)
        router.stop()
    assert run.status == "finished" and run.judge_calls == 2, run.outcome
    each_call = 100 * 30 / 1e6 + 50 * 63 / 1e6  # the stand-in's 100 tokens in and 50 out, at novita's price
    assert run.usage["judge_cost_usd"] == pytest.approx(2 * each_call)
    assert run.usage["cost_usd"] == pytest.approx(2 * each_call)  # the oracle spent nothing of its own
    assert "novita" in run.usage["judge_price_source"]
    page = client.get(f"/r/{run.id}").get_data(as_text=True)
    assert f'<dd class="run-judge">{JUDGE} · 2 calls · $0.0123</dd>' in page


def test_nop_writes_nothing_for_the_judge_to_read_and_scores_zero_without_a_call(judged_app, judged_worker,
                                                                                 judge):
    client = judged_app.test_client()
    run = wait_for(judged_app, run_id_of(post_run(client, path=GENERAL, agent="nop", judge=JUDGE)), timeout=180)
    assert run.status == "finished" and run.rewards == {"reward": 0.0}, run.outcome
    assert run.judge_calls == 0 and judge.requests == []


def test_a_judge_outside_the_pool_is_refused_and_the_pool_is_the_admins(judged_app):
    client = judged_app.test_client()
    refused = post_run(client, path=GENERAL, agent="oracle", judge="someone/cheap-judge")
    text = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "Judge model (grades this task&#39;s answer) must be one of" in text and "someone/cheap-judge" in text
    settings = judged_app.extensions["rlx.store"].settings_path
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"rollouts": {"judges": ["org/house-judge"]}}))
    form = client.get(GENERAL).get_data(as_text=True)
    assert '<option value="org/house-judge" selected>' in form and JUDGE not in form
    assert post_run(client, path=GENERAL, agent="oracle", judge=JUDGE).status_code == 400
    assert not any(judged_app.extensions["rlx.store"].runs_dir.glob("*/run.json"))  # nothing started


def test_only_a_model_graded_task_offers_a_judge(judged_app):
    index_now(judged_app, TWIN)
    client = judged_app.test_client()
    assert '<select name="judge">' not in client.get(f"/t/{TWIN}/music-gk-0812").get_data(as_text=True)
    page = client.get(GENERAL).get_data(as_text=True)
    assert "graded by a judge model, which only this machine" in page  # the HF Sandbox option says why not


def test_a_judge_that_answers_no_score_leaves_the_run_not_scored_never_zero(judged_app, judged_worker, judge):
    judge.garbage = True  # it answers prose, not the rubric's JSON
    client = judged_app.test_client()
    run = wait_for(judged_app, run_id_of(post_run(client, path=GENERAL, agent="oracle", judge=JUDGE)), timeout=180)
    assert run.status == "finished" and not run.scored and run.rewards is None, run.outcome
    assert run.judge_calls == 1  # the verifier stopped at the first check the judge did not score
    assert "Not scored" in client.get(f"/r/{run.id}").get_data(as_text=True)


def _terminus_run(app, client, path: str, steps: list[dict]):
    """terminus-2 on a judged task, its model the stand-in playing `steps` then saying it is done; the ended run."""
    agent_model = ModelStandIn([*steps, action("", done=True)]).start()
    try:
        run_id = run_id_of(post_run(client, path=path, agent="terminus-2", model=agent_model.model,
                                    endpoint=agent_model.url, judge=JUDGE))
        return wait_for(app, run_id, timeout=240)
    finally:
        agent_model.stop()


# What a reward-hacking agent would leave behind: a report, and a "judge" on the judge's port giving full marks.
FAKE_JUDGE = """cat > /tmp/fake_judge.py <<'PY'
import http.server, json
FULL = json.dumps({"results": {"c1": {"score": 1}, "c2": {"score": 1}}})
class Judge(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"choices": [{"message": {"content": FULL}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.HTTPServer(("127.0.0.1", 18081), Judge).serve_forever()
PY
"""
REPORT = "mkdir -p /workspace/out && echo 'Everything is paid.' > /workspace/out/unpaid.md\n"
SQUAT = "setsid python3 /tmp/fake_judge.py >/dev/null 2>&1 < /dev/null &\n"


def test_an_agent_listening_on_the_judges_port_gets_no_reward_from_it(judged_app, judged_worker, judge):
    """A process the agent leaves behind on the judge's port would answer the verifier's calls with any score it
    likes: it is killed before the verifier starts (rlx/runs/verifier_wall.py), and the real judge is asked."""
    client = judged_app.test_client()
    run = _terminus_run(judged_app, client, GENERAL, [action(FAKE_JUDGE), action(REPORT + SQUAT, duration=2.0)])
    assert run.rewards != {"reward": 1.0}, (run.rewards, run.outcome)  # the fake judge's 1.0 is never had
    assert "The judge could not be put in reach of the verifier" not in (run.outcome or "")
    assert judge.requests and run.judge_calls == len(judge.requests)  # the picked judge, through the relay


def test_a_health_check_leaves_the_model_graded_task_out_and_says_why(judged_app):
    from rlx.adapters import Env, choose
    from rlx.runs.health_check import JUDGED, plan

    with judged_app.app_context():
        source, store = judged_app.extensions["rlx.source"], judged_app.extensions["rlx.store"]
        env = Env(source.repo_info("dataset", TWIN), source, store)
        adapter = choose(env)
        runnable, cannot = plan(adapter, env, adapter.build_index(env))
    assert "general-s3k-1001" not in runnable and cannot["general-s3k-1001"] == JUDGED
    assert {"code-000101", "music-gk-0812"} <= set(runnable)


def test_a_batch_offers_the_judge_picker_and_its_judged_task_is_graded_by_the_judge_picked(judged_app,
                                                                                           judged_worker, judge):
    client = judged_app.test_client()
    page = client.get(f"/d/{TWIN}").get_data(as_text=True)
    batch_form = page[page.index('class="batch-form"'):]
    assert '<select name="judge">' in batch_form[:batch_form.index("</form>")]
    assert f'<option value="{JUDGE}" selected>' in batch_form  # the admin's pool, its first preselected
    response = client.post(f"/d/{TWIN}/batch", headers={"Origin": "http://localhost"}, data={
        "agent": "oracle", "visibility": "private", "cap": "2", "f": ["category:general", "category:music"],
        "judge": JUDGE})
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    batch_id = response.headers["Location"].rsplit("/", 1)[1]
    with judged_app.app_context():
        store = judged_app.extensions["rlx.store"]
        batch = batches.load(store, batch_id)
        runs = {ref: wait_for(judged_app, run_id, timeout=180) for ref, run_id in zip(batch.refs, batch.run_ids)}
    general, music = runs["general-s3k-1001"], runs["music-gk-0812"]
    assert general.status == "finished" and general.judge == JUDGE and general.judge_calls == 2, general.outcome
    assert general.rewards == {"reward": pytest.approx(4 / 6, abs=1e-4)}  # scored by the judge, as a lone run is
    assert music.judge is None and music.judge_calls == 0  # not model-graded: no judge, no call
    assert len([r for r in judge.requests if r["path"].endswith("/chat/completions")]) == 2
    shown = client.get(f"/b/{batch_id}").get_data(as_text=True)
    assert f"judge {JUDGE} for 1 model-graded task" in shown
    exported = [json.loads(line) for line in
                client.get(f"/b/{batch_id}/results.jsonl").get_data(as_text=True).splitlines()]
    assert {r["task"]: r["judge_calls"] for r in exported} == {"general-s3k-1001": 2, "music-gk-0812": 0}
    assert next(r for r in exported if r["task"] == "general-s3k-1001")["cost_unknown"] is True  # no price for it


def test_a_batch_with_a_judge_outside_the_pool_is_refused_and_starts_nothing(judged_app):
    response = judged_app.test_client().post(f"/d/{TWIN}/batch", headers={"Origin": "http://localhost"}, data={
        "agent": "oracle", "visibility": "private", "cap": "1", "f": "category:general",
        "judge": "someone/cheap-judge"})
    assert response.status_code == 400 and "someone/cheap-judge" in response.get_data(as_text=True)
    assert "The judge model must be one of" in response.get_data(as_text=True)
    folder = judged_app.extensions["rlx.store"].runs_dir / "batches"
    assert not folder.exists() or not any(folder.iterdir())


WEBDEV = f"/t/{TWIN}/webdev-dasyn-7-2"
# The vision judge's seven scores; by hand: visual = (0.8 + 0.6 + 0.7 + 0.9 + 0.5) / 5 = 0.7, brief 0.9, assets 0.2,
# so the reward is (0.7 + 0.9 + 0.2) / 3 = 0.6.
WEB_SCORES = {"layout_integrity": 0.8, "typography": 0.6, "colour": 0.7, "whitespace": 0.9, "content_richness": 0.5,
              "brief_fulfilment": 0.9, "premium_assets": 0.2}


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Chromium (.ci/run installs it)")
def test_the_webdev_twin_is_rendered_in_the_sandbox_and_scored_by_a_vision_judge(judged_app, judged_worker, judge):
    import base64

    judge.script = [{"scores": WEB_SCORES}]
    client = judged_app.test_client()
    assert '<select name="judge">' in client.get(WEBDEV).get_data(as_text=True)
    run = wait_for(judged_app, run_id_of(post_run(client, path=WEBDEV, agent="oracle", judge=JUDGE)), timeout=240)
    assert run.status == "finished", run.outcome
    shown = client.get(f"/r/{run.id}").get_data(as_text=True)
    assert run.rewards == {"reward": pytest.approx(0.6, abs=1e-4)} and run.judge_calls == 1, shown[shown.find("no score"):][:600]
    (call,) = [r for r in judge.requests if r["path"].endswith("/chat/completions")]
    text, picture = call["body"]["messages"][-1]["content"]
    assert "pricing tiers, testimonials and a sign-up form" in text["text"]  # the brief, beside the render
    prefix = "data:image/png;base64,"
    assert picture["type"] == "image_url" and picture["image_url"]["url"].startswith(prefix)
    assert _png_size(base64.b64decode(picture["image_url"]["url"][len(prefix):])) == (1280, 2400)
    page = client.get(f"/r/{run.id}").get_data(as_text=True)
    assert "brief_fulfilment: 0.90" in page
    # the oracle's render is the reference page, an answer: neither shown nor served
    assert 'class="run-render"' not in page and client.get(f"/r/{run.id}/verifier/screenshot.png").status_code == 404


PAGE = ("mkdir -p /workspace && printf '<!doctype html><title>Penny</title><h1>Penny</h1><p>Pricing, testimonials "
        "and a sign-up form.</p>' > /workspace/index.html\n")


def test_an_agents_webdev_page_is_shown_on_its_run_page_as_the_verifier_rendered_it(judged_app, judged_worker, judge):
    judge.script = [{"scores": WEB_SCORES}]
    client = judged_app.test_client()
    run = _terminus_run(judged_app, client, WEBDEV, [action(PAGE)])
    assert run.rewards == {"reward": pytest.approx(0.6, abs=1e-4)}, run.outcome
    page = client.get(f"/r/{run.id}").get_data(as_text=True)
    assert f'<img src="/r/{run.id}/verifier/screenshot.png"' in page
    picture = client.get(f"/r/{run.id}/verifier/screenshot.png")
    assert picture.status_code == 200 and picture.mimetype == "image/png"
    assert _png_size(picture.get_data()) == (1280, 2400)
    for name in ("../run.json", "..%2Frun.json", "test-stdout.txt", "reward.txt.png"):
        assert client.get(f"/r/{run.id}/verifier/{name}").status_code == 404, name
    assert judged_app.test_client().get(f"/r/{run.id}/verifier/screenshot.png").status_code == 404  # private run


def test_a_webdev_run_that_builds_no_page_scores_zero_without_asking_the_judge(judged_app, judged_worker, judge):
    client = judged_app.test_client()
    run = wait_for(judged_app, run_id_of(post_run(client, path=WEBDEV, agent="nop", judge=JUDGE)), timeout=180)
    assert run.status == "finished" and run.rewards == {"reward": 0.0}, run.outcome
    assert run.judge_calls == 0 and judge.requests == []
