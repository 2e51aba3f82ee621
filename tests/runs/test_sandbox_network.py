"""A public-network task gets a network of its own, outbound only: run through the form, by a real worker, in
real bubblewrap, the hostile `net-walls` task (tests/fixtures/runs/.../hostile) cannot connect to a listener on
the host's 127.0.0.1 (directly or through the stack's gateway), sees none of the host's listening sockets, has no
route to the metadata address or any private range, cannot remove those routes, and still has a route out and
a DNS forwarder. Traffic is sent only to loopback addresses and the stack's gateway; the rest is `ip route get`.
A no-network sandbox has no interface but loopback, and a host without the user-mode stack gives no network at
all, said so, never the host's.
"""

from __future__ import annotations

import asyncio
import os
import shutil

import pytest

from rlx.runs import sandbox_net
from rlx.runs.bwrap import Sandbox
from tests.runs_helpers import wait_for
from tests.runs.test_run_pages import post_run, run_id_of
from tests.runs.test_run_sandbox import host_listener  # noqa: F401
from tests.runs.test_sandbox_passage import HOSTILE, hostile_app, hostile_path, probes_app, probes_folder  # noqa: F401
from tests.runs.test_sandbox_passage import secret_worker  # noqa: F401

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")
NEEDS_TUN = pytest.mark.skipif(not os.path.exists("/dev/net/tun"), reason="no /dev/net/tun: no user-mode stack")
PRIVATE = ("169.254.169.254", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fd00::1", "fe80::1")


def report_of(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


@NEEDS_TUN
def test_a_public_network_task_reaches_nothing_of_the_hosts_network(hostile_app, probes_folder, host_listener,
                                                                    secret_worker):
    port, accepted = host_listener
    (hostile_path(probes_folder, "net-walls") / "tests" / "host-port.txt").write_text(f"{port}\n")
    hostile_app.index_hostile()
    client = hostile_app.test_client()
    run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/net-walls"))
    run = wait_for(hostile_app, run_id, timeout=180)
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    report = report_of((hostile_app.config["RLX"].storage_dir / "runs" / run_id / "trial" / "verifier"
                        / "net.txt").read_text())
    assert accepted == [], "the host's loopback listener was reached from the sandbox"
    assert report["connect_loopback"] != "0" and report["connect_gateway"] != "0", report
    assert report["listening"] == "0" and report["host_port_listed"] == "0", report  # none of the host's sockets
    assert {a: report[f"route_{a}"] for a in PRIVATE} == {a: "no" for a in PRIVATE}, report
    assert report["undo"] == "refused" and report["route_after_undo"] == "no", report
    assert report["public_route"].startswith(f"1.1.1.1 via {sandbox_net.GATEWAY} dev tap0"), report
    assert report["nameserver"] == sandbox_net.NAMESERVER and report["own_loopback"] == "ok", report
    # The page and the API say which network wall held.
    page = client.get(f"/r/{run_id}").get_data(as_text=True)
    assert "own network (outbound only)" in page
    limits = client.get(f"/api/runs/{run_id}").get_json()["provenance"]["limits"]
    assert limits.startswith("Limits (") and "own network (outbound only)" in limits, limits


def run(box: Sandbox, script: str):
    return asyncio.run(box.run(script, timeout=30))


def test_a_no_network_sandbox_has_no_interface_but_loopback():
    box = Sandbox(network=False)
    box.start()
    try:
        links = run(box, "ip -o link | cut -d: -f2").stdout.split()
        route = run(box, "ip route get 1.1.1.1 >/dev/null 2>&1 && echo routed || echo unroutable").stdout.strip()
    finally:
        box.stop()
    assert links == ["lo"] and route == "unroutable"
    assert box.walls().endswith(", no network.")


def test_without_the_user_mode_stack_a_public_task_gets_no_network_and_the_sandbox_says_so(monkeypatch):
    monkeypatch.setattr(sandbox_net, "STACK", "slirp4netns-not-installed")
    box = Sandbox(network=True)
    box.start()
    try:
        route = run(box, "ip route get 1.1.1.1 >/dev/null 2>&1 && echo routed || echo unroutable").stdout.strip()
        listening = run(box, "awk '$4 == \"0A\"' /proc/net/tcp | wc -l").stdout.strip()
    finally:
        box.stop()
    assert route == "unroutable" and listening == "0"  # never the host's network instead
    assert "no network (the host could not give it one of its own: slirp4netns is not installed" in box.walls()


@NEEDS_TUN
def test_the_user_mode_stack_ends_with_its_sandbox():
    box = Sandbox(network=True)
    box.start()
    process = box.net._process
    assert process is not None and process.poll() is None, box.net.wall
    box.stop()
    assert process.poll() is not None
