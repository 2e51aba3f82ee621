"""SSRF through a re-pointed name: a visitor's model endpoint answers a public address when the form is checked,
then a private one when the worker connects. The worker judges the address at connection time and refuses.

The attacker's name server is a real DNS server on loopback (tests/stand_ins/dns.py); the private target is a TCP
listener on 127.0.0.1 that counts every connection it is offered: it must see none.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import threading

import pytest

from rlx.runs.egress import Egress, EgressRefused, guarded_client, route_litellm_through
from tests.runs_fixtures import PROBES, probes_folder, start_worker  # noqa: F401
from tests.runs_helpers import wait_for
from tests.stand_ins.dns import DnsStandIn
from tests.stand_ins.model import ModelStandIn, action
from tests.runs.test_run_pages import post_run, run_id_of

PUBLIC = "93.184.215.14"  # a globally routed address: the form's check accepts it
TASK = f"/t/{PROBES}/write-answer"
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as the worker does: no price list from GitHub


class CountingListener:
    """A TCP port on 127.0.0.1 standing for a private service: it accepts, counts and closes."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stopping.is_set():
            try:
                connection, _ = self.socket.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            connection.close()

    def stop(self):
        self._stopping.set()
        self._thread.join(5)
        self.socket.close()


@pytest.fixture
def attacker_dns():
    server = DnsStandIn().start()
    yield server
    server.stop()


@pytest.fixture
def private_target():
    listener = CountingListener()
    yield listener
    listener.stop()


def test_a_name_re_pointed_after_the_check_fails_the_run_and_reaches_nothing(make_config, redis_client, probes_folder,
                                                                              attacker_dns, private_target):
    from rlx import create_app

    app = create_app(make_config(RLX_SOURCE=str(probes_folder), RLX_MODEL_DNS=attacker_dns.address))
    attacker_dns.answer("rebind.example", [PUBLIC], ["127.0.0.1"])
    with app.app_context():
        from rlx.adapters import Env, pick

        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        env = Env(source.repo_info("dataset", PROBES), source, store)
        pick(env).build_index(env)
    worker = start_worker(app, redis_client, {"RLX_MODEL_DNS": attacker_dns.address})
    try:
        endpoint = f"https://rebind.example:{private_target.port}/v1"
        response = post_run(app.test_client(), path=TASK, agent="terminus-2", model="m", endpoint=endpoint,
                            api_key="sk-x")
        run = wait_for(app, run_id_of(response), timeout=60)  # the form's check saw the public address
    finally:
        worker.terminate()
        worker.wait(15)
    assert run.status == "failed"
    assert ("The model endpoint's host rebind.example resolved to 127.0.0.1, a loopback address, when the worker "
            "connected to it") in run.outcome and "nothing was sent" in run.outcome
    assert private_target.accepted == 0
    assert attacker_dns.queries.count(("rebind.example", "A")) >= 2  # asked again at connection time


@pytest.fixture
def restore_litellm():
    import litellm

    saved = litellm.client_session, litellm.aclient_session
    yield
    litellm.client_session, litellm.aclient_session = saved


def _ask_model(base_url: str):
    import litellm

    return asyncio.run(litellm.acompletion(model="openai/m", api_base=base_url, api_key="sk-x", max_retries=0,
                                           messages=[{"role": "user", "content": "hi"}], timeout=10))


def test_litellms_calls_go_through_the_guard(private_target, restore_litellm):
    """What terminus-2 calls: once the worker routes litellm through the guard, a private address is refused at
    connect time, whatever the form's check once saw."""
    route_litellm_through(Egress(allow_loopback=False))
    with pytest.raises(Exception) as raised:
        _ask_model(f"http://127.0.0.1:{private_target.port}/v1")
    chain, error = [], raised.value
    while error is not None:
        chain.append(str(error))
        error = error.__cause__ or error.__context__
    assert any("address 127.0.0.1 is a loopback address" in text and "nothing was sent" in text
               for text in chain), chain
    assert private_target.accepted == 0


def test_the_guarded_litellm_still_reaches_an_allowed_model(restore_litellm):
    model = ModelStandIn([action("", done=True)]).start()
    try:
        route_litellm_through(Egress(allow_loopback=True))
        answer = _ask_model(model.url)
    finally:
        model.stop()
    assert "task_complete" in answer.choices[0].message.content
    assert len(model.requests) == 1


@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "a loopback address"), ("::1", "a loopback address"),
    ("10.1.2.3", "a private address"), ("172.16.0.9", "a private address"), ("192.168.1.1", "a private address"),
    ("fc00::5", "a private address"), ("169.254.169.254", "the cloud metadata address"),
    ("169.254.10.10", "a link-local address"), ("fe80::1", "a link-local address"),
    ("224.0.0.251", "a multicast address"), ("ff02::1", "a multicast address"),
    ("0.0.0.0", "an unspecified address"), ("100.64.0.1", "a reserved address"), ("240.0.0.1", "a reserved address"),
    ("::ffff:10.0.0.1", "a private address"), ("64:ff9b::7f00:1", "a loopback address"),
])
def test_every_kind_of_non_public_address_is_refused_by_name(address, kind):
    assert Egress().why_refused(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize("address", ["8.8.8.8", PUBLIC, "2606:4700:4700::1111"])
def test_public_addresses_are_admitted(address):
    assert Egress().admit(address, 443) == [address]


def test_a_name_with_one_private_address_among_public_ones_is_refused_whole(attacker_dns, private_target):
    attacker_dns.answer("mixed.example", [PUBLIC, "10.0.0.7"])
    egress = Egress(nameserver=("127.0.0.1", int(attacker_dns.address.rsplit(":", 1)[1])))
    with pytest.raises(EgressRefused, match="resolved to 10.0.0.7, a private address"):
        egress.admit("mixed.example", 443)


def test_the_sync_client_connects_to_nothing_private(private_target):
    """The /models check's client (and any other sync call to a visitor's endpoint)."""
    with guarded_client(Egress(allow_loopback=False), timeout=5) as client, pytest.raises(EgressRefused):
        client.get(f"http://127.0.0.1:{private_target.port}/v1/models")
    assert private_target.accepted == 0
