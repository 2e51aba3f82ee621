"""The judge relay a model-graded task's verifier reaches from inside the sandbox, and the pool a visitor picks its
judge from: the relay answers only while the verifier runs, only chat completions, always with the picked judge and
the key the sandbox never holds, and counts its calls up to a cap; the pool is the admin's setting."""

from __future__ import annotations

import json

import httpx
import pytest

from rlx.runs.egress import Egress
from rlx.runs.judge_relay import JudgeRelay
from rlx.store.settings import DEFAULT_JUDGES, SettingsError, parse_settings
from tests.stand_ins.model import ModelStandIn

KEY = "sk-judge-relay-test-0123456789"
JUDGE = "openai/gpt-oss-120b"
VERDICT = {"results": {"c1": {"score": 1, "why": "listed"}}}
CALL = {"model": "whatever/the-task-asked", "messages": [{"role": "user", "content": "Score checkpoint c1."}]}


@pytest.fixture
def judged():
    model = ModelStandIn([VERDICT], key=KEY).start()
    relay = JudgeRelay(model.url, KEY, Egress(allow_loopback=True), JUDGE, max_calls=2).start()
    client = httpx.Client(transport=httpx.HTTPTransport(uds=str(relay.socket_path)), base_url="http://sandbox")
    yield model, relay, client
    client.close()
    relay.stop()
    model.stop()


def test_the_judge_answers_the_verifier_with_the_picked_model_and_the_relays_key(judged):
    model, relay, client = judged
    relay.open = True
    answer = client.post("/v1/chat/completions", json=CALL)
    assert answer.status_code == 200
    assert json.loads(answer.json()["choices"][0]["message"]["content"]) == VERDICT
    asked = model.requests[-1]
    assert asked["body"]["model"] == JUDGE and asked["authorization"] == f"Bearer {KEY}"
    assert relay.calls == 1


def test_the_judge_is_shut_while_the_agent_works(judged):
    model, relay, client = judged
    answer = client.post("/v1/chat/completions", json=CALL)
    assert answer.status_code == 403 and "verifier" in answer.json()["error"]["message"]
    assert model.requests == [] and relay.calls == 0


@pytest.mark.parametrize("method, path, body, status", [
    ("POST", "/v1/responses", CALL, 404),
    ("POST", "/v1/models", None, 404),
    ("GET", "/v1/chat/completions", None, 405),
    ("POST", "/v1/chat/completions", {"prompt": "no messages"}, 400),
])
def test_the_judge_passes_on_chat_completions_only(judged, method, path, body, status):
    model, relay, client = judged
    relay.open = True
    answer = client.request(method, path, json=body)
    assert answer.status_code == status
    assert model.requests == [] and relay.calls == 0


def test_the_judges_calls_stop_at_the_runs_cap(judged):
    model, relay, client = judged
    relay.open = True
    codes = [client.post("/v1/chat/completions", json=CALL).status_code for _ in range(3)]
    assert codes == [200, 200, 429] and relay.calls == 2 and len(model.requests) == 2


def test_the_judge_pool_is_the_admins_setting_with_a_default():
    assert parse_settings({}).rollouts.judge_pool == DEFAULT_JUDGES
    picked = parse_settings({"rollouts": {"judges": ["org/judge-a", "org/judge-b"]}}).rollouts
    assert picked.judge_pool == ("org/judge-a", "org/judge-b")
    for bad in (["not a model id"], "org/judge-a", [3], ["org/x"] * 17):
        with pytest.raises(SettingsError, match="rollouts.judges"):
            parse_settings({"rollouts": {"judges": bad}})
