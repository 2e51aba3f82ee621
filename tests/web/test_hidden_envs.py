"""Hidden means absent: an environment the admin hid answers every public surface as if it did not exist (404,
and absent from lists), while the admin app still reaches it."""

from __future__ import annotations

import json

import pytest

from tests.mcp.test_mcp_protocol import ACCEPT, rpc

TRIVIA = "rlx-examples/trivia-table"


def hide(app, *ids):
    path = app.extensions["rlx.store"].settings_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hidden": list(ids)}))


def trivia_tasks(client) -> list[str]:
    body = client.get("/api/search/tasks?q=planet&size=50").json
    return [t["ref"] for t in body["tasks"] if t["env_id"] == TRIVIA]


@pytest.fixture
def trivia_client(app):
    from tests.conftest import index_now

    index_now(app, TRIVIA)  # indexed before the catalog is first read: its tasks are in it
    client = app.test_client()
    assert client.get(f"/d/{TRIVIA}").status_code == 200
    return client


def test_task_search_leaves_a_hidden_environments_tasks_out(app, trivia_client):
    seen = trivia_tasks(trivia_client)
    assert seen, "the trivia table's planet tasks are found before it is hidden"
    hide(app, TRIVIA)
    assert trivia_tasks(trivia_client) == []
    home = trivia_client.get("/?q=planet").get_data(as_text=True)
    assert f"/t/{TRIVIA}/" not in home  # the home page's task lookup too


@pytest.mark.parametrize("path", [f"/d/{TRIVIA}", f"/api/env/{TRIVIA}", f"/community/{TRIVIA}",
                                  f"/preview/d/{TRIVIA}.png"])
def test_every_page_of_a_hidden_environment_is_a_404(app, trivia_client, path):
    before = trivia_client.get(path).status_code
    hide(app, TRIVIA)
    response = trivia_client.get(path)
    assert response.status_code == 404, (path, before, response.status_code)
    assert "trivia" not in response.get_data(as_text=True).lower().replace(TRIVIA, "")


def test_a_hidden_environments_task_page_and_json_are_404s(app, trivia_client):
    ref = trivia_client.get(f"/api/env/{TRIVIA}").json
    hide(app, TRIVIA)
    assert ref  # it answered before
    for path in (f"/d/{TRIVIA}/tasks", f"/api/env/{TRIVIA}"):
        assert trivia_client.get(path).status_code == 404


def test_mcp_for_a_hidden_environment_answers_like_a_missing_one(app, trivia_client):
    init = rpc("initialize", 0, protocolVersion="2025-11-25", capabilities={},
               clientInfo={"name": "agent", "version": "1"})
    assert trivia_client.post(f"/mcp/d/{TRIVIA}", json=init, headers=ACCEPT).status_code == 200
    hide(app, TRIVIA)
    missing = trivia_client.post("/mcp/d/rlx-examples/no-such-thing", json=init, headers=ACCEPT)
    hidden = trivia_client.post(f"/mcp/d/{TRIVIA}", json=init, headers=ACCEPT)
    assert hidden.status_code == missing.status_code == 404


def test_the_sitemap_leaves_it_out(app, trivia_client):
    hide(app, TRIVIA)
    index = trivia_client.get("/sitemap.xml").get_data(as_text=True)
    shards = [line.split("<loc>")[1].split("</loc>")[0] for line in index.splitlines() if "<loc>" in line]
    for shard in shards:
        path = "/" + shard.split("/", 3)[3]
        assert TRIVIA not in trivia_client.get(path).get_data(as_text=True)


def test_the_rank_answer_knows_no_hidden_environment(app, trivia_client):
    mine = trivia_client.get(f"/api/search/rank?key={TRIVIA}").json
    ids = [c["id"] for c in trivia_client.get("/api/search?size=50").json["cards"]]
    ranks = {i: trivia_client.get(f"/api/search/rank?key={i}").json for i in ids if i != TRIVIA}
    kin = {i: r for i, r in ranks.items() if r.get("kind") == mine["kind"]}
    assert kin, "another environment of the trivia table's kind"
    hide(app, TRIVIA)
    response = trivia_client.get(f"/api/search/rank?key={TRIVIA}")
    assert response.status_code == 404 and response.json["ok"] is False
    for env_id, before in kin.items():  # the hidden one is counted by none of its kind
        after = trivia_client.get(f"/api/search/rank?key={env_id}").json
        assert after["of"] == before["of"] - 1
        assert after["n"] == before["n"] - (before["n"] > mine["n"])


def test_compare_of_a_hidden_environments_runs_is_a_404(app, trivia_client):
    from rlx.runs import record, runs_db

    runs = [record.RunRecord(id=record.new_run_id(), env_id=TRIVIA, ref="train/0", agent=agent, visibility="public",
                             status="finished", scored=True, rewards={"reward": 1.0}) for agent in ("oracle", "nop")]
    with app.app_context():
        for run in runs:
            record.save(app.extensions["rlx.store"], run)
            runs_db.upsert(app.extensions["rlx.store"], run)
    paths = [f"/compare?runs={runs[0].id},{runs[1].id}", f"/compare?runs={runs[0].id}",
             f"/compare/sets?env={TRIVIA}&a=agent:oracle&b=agent:nop", f"/community/{TRIVIA}"]
    assert [trivia_client.get(p).status_code for p in paths] == [200] * 4
    hide(app, TRIVIA)
    for path in paths:
        response = trivia_client.get(path)
        assert response.status_code == 404, path
        assert "trivia" not in response.get_data(as_text=True).lower().replace("trivia-table", "")
    assert "trivia" not in trivia_client.get("/community").get_data(as_text=True)
