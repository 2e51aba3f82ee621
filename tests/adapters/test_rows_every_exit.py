"""One secret per route of escape, and every exit checked: a rows dataset whose rows each hide one answer the way
real datasets hide them, read through every door a visitor, a search engine or a coding agent has.

Routes (one row each, verl-shaped rows written by us):
1. a grader field (`reward_model.ground_truth`);
2. an answer nested in JSON text, inside a label the page shows (`extra_info.category`);
3. an answer in a Python-literal string (str(dict)), inside another shown label (`extra_info.difficulty`);
4. an answer under an ordinary name no deny-list knows (`checker_data`);
5. an extra_info end state (`extra_info.final_config`, the booking the grader compares with);
6. a value withheld once, standing again in a label (`data_source` repeats the ground truth).
Exits: the dataset page, each task page and its prompt, /api/env, /api/task, MCP get_task, list_tasks,
search_tasks, random_task and describe, task search (/api/search/tasks), the published snapshot's bytes (every
SQLite file under the store), the sitemap, and each page's sharing tags (og:/twitter: meta).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.crawl import crawl, sqlite_text
from tests.mcp.test_mcp_protocol import initialize, post, rpc

DATASET = "leak/routes"
SECRET = re.compile(r"ZX-ROUTE-\d{4}")
PUBLIC = "https://explorer.example.org"


def _row(i: int, question: str, **fields) -> dict:
    row = {"data_source": "routes", "prompt": [{"role": "user", "content": question}], "ability": "puzzle",
           "reward_model": {"style": "rule", "ground_truth": f"plain-{i}"},
           "extra_info": {"split": "train", "index": i}}
    for key, value in fields.items():
        if key.startswith("extra_info."):
            row["extra_info"][key.split(".", 1)[1]] = value
        elif key.startswith("reward_model."):
            row["reward_model"][key.split(".", 1)[1]] = value
        else:
            row[key] = value
    return row


ROWS = [
    _row(0, "Route one: name the hidden word.", **{"reward_model.ground_truth": "ZX-ROUTE-1001"}),
    _row(1, "Route two: name the hidden word.",
         **{"extra_info.category": json.dumps({"name": "algebra", "answer": "ZX-ROUTE-1002"})}),
    _row(2, "Route three: name the hidden word.",
         **{"extra_info.difficulty": str({"level": "hard", "solution": "ZX-ROUTE-1003"})}),
    _row(3, "Route four: name the hidden word.", checker_data="ZX-ROUTE-1004"),
    _row(4, "Route five: book the cheapest room.",
         **{"extra_info.final_config": {"booking": {"room": "ZX-ROUTE-1005", "nights": 2}}}),
    _row(5, "Route six: name the hidden word.",
         **{"reward_model.ground_truth": "ZX-ROUTE-1006", "data_source": "ZX-ROUTE-1006"}),
]


@pytest.fixture(scope="module")
def published(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.catalog import fetch_listing
    from rlx.config import Config
    from rlx.snapshot.build import build_snapshot
    from rlx.snapshot.publish import publish
    from rlx.snapshot.row_sources import StoredIndexes
    from tests.conftest import index_now

    root = tmp_path_factory.mktemp("routes")
    repo = root / "hub" / "datasets" / "leak" / "routes"
    (repo / "data").mkdir(parents=True)
    (repo / "README.md").write_text("---\npretty_name: Routes of escape\ntags:\n- verl\n---\n# Routes\n")
    (repo / "data" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    app = create_app(Config.from_env({"STORAGE_DIR": str(root / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "x", "RLX_SOURCE": str(root / "hub"),
                                      "RLX_PUBLIC_URL": PUBLIC}))
    index = index_now(app, DATASET)
    store, source = app.extensions["rlx.store"], app.extensions["rlx.source"]
    with app.app_context():
        build_snapshot(fetch_listing(source), StoredIndexes(store), root / "catalog.db")
        publish(root / "catalog.db", store)
    return app, root, index


def _leaks(seen: dict[str, str]) -> dict[str, list[str]]:
    return {where: sorted(set(SECRET.findall(body))) for where, body in seen.items() if SECRET.search(body)}


def test_every_route_is_a_task_that_still_reads(published):
    app, _, index = published
    assert [row.ref for row in index.rows] == [f"train/{i}" for i in range(6)]
    page = app.test_client().get(f"/t/{DATASET}/train/4").get_data(as_text=True)
    assert "Route five: book the cheapest room." in page and "extra_info.final_config" in page


def test_no_route_reaches_a_page_or_json_answer(published):
    app, _, _ = published
    seen = crawl(app.test_client(), DATASET)
    assert sum(url.startswith(f"/t/{DATASET}/train/") for url in seen) >= 6
    assert _leaks(seen) == {}


def test_no_route_reaches_mcp(published):
    app, _, _ = published
    client, url = app.test_client(), f"/mcp/d/{DATASET}"
    session, _ = initialize(client, url=url)
    calls = [("describe", {}), ("list_tasks", {"page_size": 100}), ("search_tasks", {"query": "route"}),
             ("random_task", {}), *(("get_task", {"ref": f"train/{i}"}) for i in range(6))]
    seen = {}
    for number, (name, arguments) in enumerate(calls, 1):
        body = post(client, rpc("tools/call", number, name=name, arguments=arguments), session, url=url).get_json()
        assert "result" in body, (name, body)
        seen[f"{name} {arguments}"] = json.dumps(body["result"], ensure_ascii=False)
    assert "Route five: book the cheapest room." in seen["get_task {'ref': 'train/4'}"]
    assert _leaks(seen) == {}
    for secret in ("ZX-ROUTE-1001", "ZX-ROUTE-1005"):  # asking for an answer finds no task
        asked = post(client, rpc("tools/call", 99, name="search_tasks", arguments={"query": secret}), session,
                     url=url).get_json()["result"]
        assert asked["structuredContent"]["tasks"] == []


def test_no_route_reaches_task_search_the_snapshot_the_sitemap_or_sharing_tags(published):
    app, root, _ = published
    client = app.test_client()
    seen = {}
    found = client.get("/api/search/tasks?q=route").get_json()
    assert {t["ref"] for t in found["tasks"] if t["env_id"] == DATASET} >= {"train/0", "train/5"}
    seen["/api/search/tasks?q=route"] = json.dumps(found)
    for secret in ("ZX-ROUTE-1001", "ZX-ROUTE-1004", "ZX-ROUTE-1006"):
        assert client.get(f"/api/search/tasks?q={secret}").get_json()["total"] == 0
    seen.update(sqlite_text(root / "data"))  # the published snapshot and every copy the app made of it
    assert any("Route six" in body for where, body in seen.items() if where.startswith("sqlite:"))
    sitemap = client.get("/sitemap.xml").get_data(as_text=True)
    shards = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    seen["sitemap"] = sitemap + "".join(client.get(s.replace(PUBLIC, "")).get_data(as_text=True) for s in shards)
    assert f"/t/{DATASET}/train/5" in seen["sitemap"]
    for i in range(6):
        page = client.get(f"/t/{DATASET}/train/{i}").get_data(as_text=True)
        tags = re.findall(r'<meta (?:property|name)="(?:og|twitter):[^>]+>', page)
        assert tags, "the task page has sharing tags"
        seen[f"meta train/{i}"] = "\n".join(tags)
    assert _leaks(seen) == {}
