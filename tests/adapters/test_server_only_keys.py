"""Keys starting with `_` are the server's own (an adapter's notes to itself, a grader's internals) and never
leave it: not in the JSON API, not over MCP, not on the page. An adapter is made to plant some here, as a careless
or hostile dataset would, and every way out is read."""

import json

import pytest

from rlx.adapters.contract import Block, Section
from rlx.adapters.harbor.adapter import HarborAdapter
from tests.mcp.test_mcp_protocol import initialize, post, rpc

PLANTED = ("PLANTED-FACT-7f3a", "PLANTED-VALUE-91c2", "PLANTED-NESTED-0b5e")
REF = "csv-sales-rollup"


@pytest.fixture
def planted(indexed_client, monkeypatch):
    real_task = HarborAdapter.task

    def task_with_server_notes(self, env, index, ref):
        view = real_task(self, env, index, ref)
        view.facts["_server_only"] = PLANTED[0]
        view.sections.append(Section("notes", "Notes", [Block("value", {"value": {
            "shown": "visible text", "_grader_note": PLANTED[1], "deeper": [{"_key": PLANTED[2], "ok": 1}]}})]))
        return view

    monkeypatch.setattr(HarborAdapter, "task", task_with_server_notes)
    return indexed_client


def test_the_json_api_drops_every_underscore_key_at_any_depth(planted):
    response = planted.get(f"/api/task/rlx-examples/terminal-basics/{REF}")
    assert response.status_code == 200
    raw = response.get_data(as_text=True)
    assert "visible text" in raw  # the planted section is served...
    assert [p for p in PLANTED if p in raw] == []  # ...without its server-only keys
    assert '"_' not in json.dumps(response.get_json())


def test_mcp_get_task_drops_every_underscore_key(planted):
    session, _ = initialize(planted, url="/mcp/d/rlx-examples/terminal-basics")
    reply = post(planted, rpc("tools/call", 1, name="get_task", arguments={"ref": REF}), session,
                 url="/mcp/d/rlx-examples/terminal-basics").get_data(as_text=True)
    assert "visible text" in reply
    assert [p for p in PLANTED if p in reply] == []
