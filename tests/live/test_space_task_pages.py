"""A Space server's Task API tasks as task pages (/s/<org>/<name>/t/<split>/<index>), against a real openenv
server (Harbor-shaped, tests/live_envs/harbor_like): listed on the Space's page, each drawn as a dataset row is with
its answer withheld from the page and the JSON, offered to the playground with its split and index, named in the
sitemap from the advertised split sizes; a Space that does not answer gets a sentence and a 503, never a 500."""

from __future__ import annotations

import html
import re
import socket
import xml.etree.ElementTree as ET

from rlx import create_app
from tests.live_site import space_folder
from tests.web.test_seo import hide

HARBOR = "acme/harbor-like"
DOWN = "acme/sleepy"
TASKS = "harbor-org/terminal-tasks"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client_for(tmp_path, make_config, harbor_server):
    space_folder(tmp_path / "src", HARBOR, "acme-harbor-like")
    space_folder(tmp_path / "src", DOWN, "acme-sleepy")
    hosts = f"acme-harbor-like={harbor_server},acme-sleepy=http://127.0.0.1:{closed_port()}"
    app = create_app(make_config(RLX_SOURCE=str(tmp_path / "src"), RLX_SPACE_HOSTS=hosts))
    return app.test_client()


def test_a_task_page_shows_the_prompt_withholds_the_answer_and_offers_the_playground(
        tmp_path, make_config, redis_client, harbor_server):
    client = client_for(tmp_path, make_config, harbor_server)
    live = client.get(f"/s/{HARBOR}/live").get_data(as_text=True)  # the check that finds the Task API
    assert "Its tasks" in live and f"{TASKS} · task 2" in live
    assert f'href="/s/{HARBOR}/t/{TASKS}/1"' in live.replace("%2F", "/")
    page = client.get(f"/s/{HARBOR}/t/{TASKS}/1")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "What the agent gets" in text and "Do thing 1." in text and "Task 1 of 3" in text
    assert "secret answer" not in text  # the task's solution field
    assert "<code>solution</code>: its name marks it as an answer" in text
    link = html.unescape(re.search(r'href="([^"]*/play\?[^"]*)">Play it in the playground', text).group(1))
    assert f"split={TASKS}" in link.replace("%2F", "/") and "index=1" in link
    play = client.get(link).get_data(as_text=True)
    assert f'<option value="{TASKS}" selected>' in play and 'value="1"' in play
    assert 'rel="prev"' in text and 'rel="next"' in text
    api = client.get(f"/api/space/{HARBOR}/t/{TASKS}/1")
    assert api.status_code == 200 and "Do thing 1." in api.get_data(as_text=True)
    assert "secret answer" not in api.get_data(as_text=True)
    assert any(w["where"] == "solution" for w in api.get_json()["withheld"])
    # an agent asking the MCP bridge for the same task is handed what the page shows, withheld alike
    from tests.mcp.test_mcp_protocol import initialize, post, rpc

    session, _ = initialize(client, url=f"/mcp/{HARBOR}")
    reply = post(client, rpc("tools/call", 1, name="get_task", arguments={"split": TASKS, "index": 1}), session,
                 url=f"/mcp/{HARBOR}").get_json()["result"]
    assert sorted(reply["structuredContent"]["withheld"]) == sorted(w["where"] for w in api.get_json()["withheld"])
    browser = client.get(f"/s/{HARBOR}/tasks", query_string={"split": TASKS}).get_data(as_text=True)
    assert f'href="/s/{HARBOR}/t/{TASKS}/2"' in browser.replace("%2F", "/")


def test_unknown_tasks_are_404_and_a_space_that_does_not_answer_is_503_with_a_sentence(
        tmp_path, make_config, redis_client, harbor_server):
    client = client_for(tmp_path, make_config, harbor_server)
    client.get(f"/s/{HARBOR}/live")
    for ref in (f"{TASKS}/3", f"{TASKS}/x", "nope/0", f"{TASKS}/99999999999"):
        missing = client.get(f"/s/{HARBOR}/t/{ref}")
        assert missing.status_code == 404, ref
    down = client.get(f"/s/{DOWN}/t/{TASKS}/0")
    assert down.status_code == 503 and down.headers["Retry-After"] == "60"
    assert f"{DOWN} is asleep or down, so its task cannot be read right now" in html.unescape(
        down.get_data(as_text=True))
    redis_client.set(f"rlx:live:lock:{HARBOR}", "1")  # another process is checking: said so, not "down"
    redis_client.delete(f"rlx:live:check:{HARBOR}")
    checking = client.get(f"/s/{HARBOR}/t/{TASKS}/0")
    assert checking.status_code == 503 and checking.headers["Retry-After"] == "5"
    assert "is being checked by another visitor's request right now" in html.unescape(checking.get_data(as_text=True))
    redis_client.delete(f"rlx:live:lock:{HARBOR}")
    down_api = client.get(f"/api/space/{DOWN}/t/{TASKS}/0")
    assert down_api.status_code == 503 and "asleep or down" in down_api.get_json()["error"]


def test_the_sitemap_names_the_advertised_task_pages_within_the_cap(
        tmp_path, make_config, redis_client, harbor_server, monkeypatch):
    from rlx.web.seo import space_tasks_sitemap

    client = client_for(tmp_path, make_config, harbor_server)
    index = ET.fromstring(client.get("/sitemap.xml").data)
    shards = [loc.text for loc in index.findall("sm:sitemap/sm:loc", NS)]
    assert any(url.endswith("/sitemap-space-tasks.xml") for url in shards)
    before = ET.fromstring(client.get("/sitemap-space-tasks.xml").data)
    assert before.findall("sm:url", NS) == []  # no check yet: nothing advertised
    client.get(f"/s/{HARBOR}/live")
    urls = [loc.text.replace("%2F", "/") for loc in
            ET.fromstring(client.get("/sitemap-space-tasks.xml").data).findall("sm:url/sm:loc", NS)]
    for i in range(3):
        assert urls.count(f"http://localhost/s/{HARBOR}/t/{TASKS}/{i}") == 1
    assert len(urls) == 3 + 80  # the other split advertises 80 tasks; the broken one none
    monkeypatch.setattr(space_tasks_sitemap, "PER_SPACE", 5)
    capped = ET.fromstring(client.get("/sitemap-space-tasks.xml").data).findall("sm:url", NS)
    assert len(capped) == 5
    hide(client.application, f"space:{HARBOR}")
    assert ET.fromstring(client.get("/sitemap-space-tasks.xml").data).findall("sm:url", NS) == []


def test_refs_name_the_environment_only_when_the_server_has_several():
    from rlx.adapters.openenv.live_tasks import SpaceTaskRef, listed_refs, make_ref, parse_ref

    one = {"ok": True, "environments": ["harbor_env"],
           "task_api": {"harbor_env": {"splits": [{"name": TASKS, "num_tasks": 3}]}}}
    two = {"ok": True, "environments": ["a", "b"],
           "task_api": {"a": {"splits": [{"name": "train", "num_tasks": 2}]},
                        "b": {"splits": [{"name": "org/x"}, {"name": "gone", "num_tasks": 5, "error": "not found"}]}}}
    assert make_ref(one, "harbor_env", TASKS, 2) == f"{TASKS}/2"
    assert parse_ref(one, f"{TASKS}/2") == SpaceTaskRef("harbor_env", TASKS, 2)
    assert make_ref(two, "b", "org/x", 7) == "b/org/x/7"
    assert parse_ref(two, "b/org/x/7") == SpaceTaskRef("b", "org/x", 7)  # no size said: any index is asked
    for ref in ("a/train/2", "train/0", "c/train/0", "b/gone/0", "a/train/-1", "a/train/"):
        assert parse_ref(two, ref) is None, ref
    assert parse_ref({**one, "ok": False}, f"{TASKS}/0") is None
    assert [ref for ref, _ in listed_refs(two, 10)] == ["a/train/0", "a/train/1"]  # a split of no size: unlisted
    assert len(list(listed_refs(one, 2))) == 2
