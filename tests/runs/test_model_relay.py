"""The model relay an installed agent reaches from inside the sandbox: it adds the key the sandbox never holds,
passes on the model API's paths only, and counts the tokens the endpoint reports."""

from __future__ import annotations

import httpx
import pytest

from rlx.runs.egress import Egress
from rlx.runs.model_relay import MAX_BODY, ModelRelay
from tests.stand_ins.model import ModelStandIn, bash

KEY = "sk-relay-test-0123456789"


@pytest.fixture
def relayed():
    model = ModelStandIn([bash("ls")], key=KEY).start()
    relay = ModelRelay(model.url, KEY, Egress(allow_loopback=True)).start()
    client = httpx.Client(transport=httpx.HTTPTransport(uds=str(relay.socket_path)), base_url="http://sandbox")
    yield model, relay, client
    client.close()
    relay.stop()
    model.stop()


def test_the_relay_adds_the_key_and_counts_what_the_endpoint_reports(relayed):
    model, relay, client = relayed
    answer = client.post("/v1/chat/completions", headers={"Authorization": "Bearer held-by-the-relay"},
                         json={"model": model.model, "messages": [{"role": "user", "content": "hi"}],
                               "tools": [{"type": "function", "function": {"name": "bash"}}]})
    assert answer.status_code == 200 and answer.json()["choices"][0]["message"]["tool_calls"]
    assert model.requests[-1]["authorization"] == f"Bearer {KEY}"
    assert relay.usage() == {"input_tokens": 100, "output_tokens": 50}
    streamed = client.post("/v1/responses", json={"model": model.model, "input": [], "stream": True})
    assert "response.completed" in streamed.text
    assert relay.usage() == {"input_tokens": 200, "output_tokens": 100}


@pytest.mark.parametrize("method, path, size, status", [
    ("GET", "/v1/files", 0, 404),
    ("POST", "/v1/../admin", 0, 404),
    ("POST", "/v1/chat/completions", MAX_BODY + 1, 413),
])
def test_the_relay_passes_on_nothing_but_the_model_api(relayed, method, path, size, status):
    model, _relay, client = relayed
    asked = len(model.requests)
    answer = client.request(method, path, content=b"x" * size if size else None,
                            headers={"Content-Length": str(size)} if size else {})
    assert answer.status_code == status
    assert len(model.requests) == asked  # the endpoint was never asked


def test_a_stopped_relay_keeps_no_socket_and_no_key(relayed):
    _model, relay, _client = relayed
    relay.stop()
    assert not relay.folder.exists() and relay._key is None


def test_the_relay_notes_which_provider_the_router_says_served_each_answer():
    model = ModelStandIn([bash("ls")], key=KEY, router_providers=[], serves="novita").start()
    relay = ModelRelay(model.url, KEY, Egress(allow_loopback=True)).start()
    try:
        transport = httpx.HTTPTransport(uds=str(relay.socket_path))
        with httpx.Client(transport=transport, base_url="http://sandbox") as client:
            assert client.get("/v1/models").status_code == 200  # a listing serves no call: not counted
            client.post("/v1/responses", json={"model": model.model, "input": [], "stream": True})
        assert relay.served.providers() == {"novita"} and relay.served.calls == 1
    finally:
        relay.stop()
        model.stop()
