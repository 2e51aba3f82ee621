"""The agent's text on the task page is exactly the text /api/task and MCP `get_task` give, for every task of
every bundled dataset (and on a recorded run's page, as /api/env/.../rollouts and `get_rollout` give it): read back from the page's HTML the way a browser's parser reads a <pre>, character for
character. Markdown rendering (which drops `<file>`, backslashes, fences and diff lines) is only an opt-in view."""

from __future__ import annotations

import html as htmllib
import re

import pytest

from tests.conftest import EXAMPLES, index_now
from tests.mcp.test_mcp_protocol import initialize, post, rpc

ORG = "rlx-examples"
DATASETS = sorted(p.name for p in (EXAMPLES / "datasets" / ORG).iterdir() if p.is_dir())
VERBATIM = re.compile(r'<pre class="verbatim" data-verbatim>(.*?)</pre>', re.S)
TRICKY = ("Edit <file>src/app.py</file>; keep `__init__` and \\\\ and \\[x\\] as they are.\n"
          "```diff\n- old line\n+ new line\n```\n<b>not bold</b>\r\nend")


def texts_on_page(html: str) -> list[str]:
    """Each verbatim block's text as a parser builds it: one newline right after <pre> is dropped, entities
    (including &#13; for a carriage return) decoded."""
    out = []
    for raw in VERBATIM.findall(html):
        raw = raw[1:] if raw.startswith("\n") else raw
        out.append(htmllib.unescape(raw))
    return out


def agent_texts(blocks: list[dict]) -> list[str]:
    """The agent's text in API blocks, in page order: prompt blocks, chat turns, and those inside parts."""
    out = []
    for block in blocks:
        kind, data = block["kind"], block["data"]
        if kind == "prompt":
            out.append(data["text"])
        elif kind == "messages":
            out.extend(str(m["content"]) for m in data)
        elif kind == "disclose":
            out.extend(agent_texts(data["blocks"]))
        elif kind == "steps":
            for part in data:
                out.extend(agent_texts(part["blocks"]))
    return out


@pytest.fixture(scope="module")
def examples_client(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config
    from rlx.queue.connection import connect

    connect(redis_url).flushall()
    config = Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                              "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(EXAMPLES)})
    app = create_app(config)
    indexes = {name: index_now(app, f"{ORG}/{name}") for name in DATASETS}
    reads = {}  # each dataset's pages: (page, its JSON, the MCP tool and arguments that read the same)
    for name, index in indexes.items():
        reads[name] = [(f"/t/{ORG}/{name}/{row.ref}", f"/api/task/{ORG}/{name}/{row.ref}", "get_task",
                        {"ref": row.ref}) for row in index.rows]
        for n, entry in enumerate(index.summary.get("rollouts") or []):  # recorded runs: each trace's page
            reads[name] += [(f"/d/{ORG}/{name}/rollouts/{n}/{t['n']}", f"/api/env/{ORG}/{name}/rollouts/{n}/{t['n']}",
                             "get_rollout", {"file": n, "trace": t["n"]})
                            for t in entry.get("traces") or [] if not t.get("empty")]
    return app.test_client(), reads


@pytest.mark.parametrize("name", DATASETS)
def test_every_tasks_page_shows_the_agents_text_exactly_as_the_api_and_mcp_give_it(examples_client, name):
    client, reads = examples_client
    assert reads[name], f"{name} lists no task and no recorded run"
    session, _ = initialize(client, url=f"/mcp/d/{ORG}/{name}")
    checked = 0
    for page_url, api_url, tool, arguments in reads[name]:
        api = client.get(api_url)
        assert api.status_code == 200, api_url
        expected = [text for section in api.get_json()["sections"] for text in agent_texts(section["blocks"])]
        page = client.get(page_url).get_data(as_text=True)
        assert texts_on_page(page) == expected, page_url
        reply = post(client, rpc("tools/call", 1, name=tool, arguments=arguments), session,
                     url=f"/mcp/d/{ORG}/{name}").get_json()
        mcp_text = reply["result"]["content"][0]["text"]
        for text in expected:
            assert text in mcp_text, (page_url, text[:80])
        checked += len(expected)
    assert checked, f"no task of {name} shows the agent's text as a prompt or a chat"


def test_characters_markdown_would_eat_survive_on_the_page(app):
    """One prompt with every trap at once: the page's verbatim text is the prompt; the rendered view is opt-in."""
    from flask import render_template_string

    from rlx.adapters import blocks

    with app.test_request_context():
        html = render_template_string('{% import "blocks/blocks.html" as k %}{{ k.block(b) }}{{ k.block(m) }}',
                                      b=blocks.prompt("\n" + TRICKY),
                                      m=blocks.messages([{"role": "user", "content": TRICKY}]))
    assert texts_on_page(html) == ["\n" + TRICKY, TRICKY]
    assert '<details class="rendered"><summary>Rendered</summary>' in html  # markdown only when opened
    assert "<b>not bold</b>" not in html.split("<details")[0]  # HTML in a prompt is text, never drawn
    assert 'class="role">user<' in html
