"""Hostile text in every field a dataset controls is shown as text, never run: a README with <script>, task names,
titles, descriptions, metadata, tags, instructions, file names and contents, row cells. And the words of a search
or a filter are text too: shown escaped, never part of a query's syntax."""

import json

import pytest

from rlx import create_app
from tests.conftest import index_now
from tests.http.test_security_headers import scan

ORG = "hostile"
P = '<script>alert("xss")</script><img src=x onerror=alert(1)>"\'><svg onload=alert(2)>'
PAYLOADS = [P, '"><script>alert(3)</script>', "javascript:alert(4)", "</textarea><script>alert(5)</script>",
            "{{7*7}}{% raw %}", "</style><script>alert(6)</script>", "<a href=\"javascript:alert(7)\">x</a>"]
TOML_SAFE = P.replace('"', "'")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory, redis_url):
    from rlx.config import Config

    root = tmp_path_factory.mktemp("hostile-source")
    harbor = root / "datasets" / ORG / "tasks"
    write(harbor / "README.md", f"---\npretty_name: \"{TOML_SAFE}\"\ntags: [harbor, \"{TOML_SAFE}\"]\n---\n"
                                f"# {P}\n\n{P}\n\n[click](javascript:alert(8))\n\n"
                                "<iframe src=//evil.example></iframe>\n")
    task = harbor / "tasks" / "evil-task"
    write(task / "task.toml", f'[task]\nname = "{ORG}/evil-task"\ndescription = "{TOML_SAFE}"\n'
                              f'keywords = ["{TOML_SAFE}"]\n\n[metadata]\ndifficulty = "{TOML_SAFE}"\n'
                              f'category = "{TOML_SAFE}"\ntags = ["{TOML_SAFE}", "ok"]\n\n[verifier]\n'
                              f'timeout_sec = 60.0\n')
    write(task / "instruction.md", "\n\n".join(PAYLOADS) + "\n")
    write(task / "environment" / "Dockerfile", f"FROM ubuntu:24.04\n# {P}\n")
    write(task / "environment" / f"data-{P.replace('/', '_')[:60]}.txt", P)
    write(task / "tests" / "test.sh", f"#!/bin/bash\necho '{P}'\n")
    rows = root / "datasets" / ORG / "rows"
    write(rows / "README.md", f"---\npretty_name: rows\ntags: [verl]\n---\n{P}\n")
    write(rows / "data" / "train.jsonl", "".join(json.dumps({
        "data_source": P, "ability": P, "prompt": [{"role": "user", "content": payload}],
        "extra_info": {"note": payload, P: "key"}, "reward_model": {"style": "rule", "ground_truth": "G-1"}}) + "\n"
        for payload in PAYLOADS))
    config = Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                              "SESSION_SECRET": "x", "RLX_SOURCE": str(root)})
    app = create_app(config)
    index_now(app, f"{ORG}/tasks")
    index_now(app, f"{ORG}/rows")
    return app


def pages(app):
    client = app.test_client()
    urls = ["/", f"/?q={P}", f"/d/{ORG}/tasks", f"/d/{ORG}/tasks?q={P}", f"/d/{ORG}/tasks?f=tags:{P}",
            f"/d/{ORG}/tasks?f={P}:{P}", f"/t/{ORG}/tasks/evil-task",
            f"/t/{ORG}/tasks/evil-task?f=environment/Dockerfile", f"/t/{ORG}/tasks/evil-task?f=tests/test.sh",
            f"/t/{ORG}/tasks/evil-task?f=instruction.md&view=full", f"/d/{ORG}/rows", f"/d/{ORG}/rows?q={P}"]
    urls += [f"/t/{ORG}/rows/train/{i}" for i in range(len(PAYLOADS))]
    urls += [f"/t/{ORG}/tasks/{P}", f"/d/{ORG}/{P}", f"/nothing/{P}", f"/d/{ORG}/rows/row?split={P}&i=1"]
    for url in urls:
        response = client.get(url)
        yield url, response


def test_no_hostile_field_runs_on_any_page(hostile_app):
    tried = 0
    for url, response in pages(hostile_app):
        tried += 1
        assert response.status_code < 500, url
        html = response.get_data(as_text=True)
        found = scan(html)
        assert found.handlers == [] and found.js_urls == [], (url, found.handlers, found.js_urls)
        assert [n for n in found.inline_scripts if n is None] == [], url
        assert "<script>alert" not in html and "<svg onload" not in html and "<iframe" not in html, url
        assert "49" not in html.split("{{7*7}}")[0][-5:] if "{{7*7}}" in html else True  # no template injection
    assert tried >= 20


def test_the_hostile_text_is_still_shown_as_text(hostile_app):
    html = hostile_app.test_client().get(f"/t/{ORG}/tasks/evil-task").get_data(as_text=True)
    assert "&lt;script&gt;alert(" in html  # visible to the reader, escaped


def test_the_json_api_and_mcp_carry_it_as_data_never_as_markup(hostile_app):
    from tests.mcp.test_mcp_protocol import initialize, post, rpc

    client = hostile_app.test_client()
    for url in (f"/api/task/{ORG}/tasks/evil-task", f"/api/env/{ORG}/tasks", f"/api/task/{ORG}/rows/train/0",
                f"/api/search?q={P}", f"/api/search/tasks?q={P}", f"/api/search/tasks?env={P}"):
        response = client.get(url)
        assert response.status_code < 500 and response.is_json, url
        assert "<" not in response.get_data(as_text=True), url
    endpoint = f"/mcp/d/{ORG}/tasks"
    session, _ = initialize(client, url=endpoint)
    reply = post(client, rpc("tools/call", 1, name="get_task", arguments={"ref": "evil-task"}), session,
                 url=endpoint)
    assert reply.status_code == 200 and reply.mimetype == "application/json"


@pytest.mark.parametrize("words", ["' OR 1=1 --", '" OR ""="', "*", "%", "_", "\\", "NEAR(x y)", "a AND b",
                                   "title:*", "\x00", "' UNION SELECT sql FROM sqlite_master --", "(", ")", "^",
                                   "; DROP TABLE envs", "-- ", "/*", "ORDER BY 1"])
def test_injection_in_search_and_filters_is_just_words(indexed_client, words):
    everything = indexed_client.get("/api/search?size=100").get_json()["total"]
    for url, params in (("/api/search", {"q": words}), ("/api/search", {"f": f"tag:{words}"}),
                        ("/api/search/tasks", {"q": words}), ("/api/search/tasks", {"env": words}),
                        ("/", {"q": words}), ("/d/rlx-examples/terminal-basics", {"q": words, "f": f"{words}:x"})):
        response = indexed_client.get(url, query_string=params)
        assert response.status_code in (200, 400), (url, params, response.status_code)
        body = response.get_data(as_text=True)
        assert "CREATE TABLE" not in body and "syntax error" not in body.lower()  # no schema, no SQL error
        if url == "/api/search" and "q" in params and response.status_code == 200:
            assert response.get_json()["total"] <= everything  # nothing a query says widens what it finds
