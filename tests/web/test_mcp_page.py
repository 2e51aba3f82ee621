"""Each environment page says how to add it to Claude Code, Codex, Cursor and VS Code, with this app's absolute
URL; the snippets are plain text with JS off, and a Copy button copies them with JS on."""

import asyncio
import html
import json
import re
import shlex
import tomllib
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.servers import needs_chromium, page, server  # noqa: F401  (fixtures: a real server and Chromium)

ENDPOINT = "http://localhost/mcp/d/rlx-examples/terminal-basics"


def snippets_of(page_html: str) -> dict[str, str]:
    section = page_html.split('id="mcp"', 1)[1].split("</section>", 1)[0]
    clients = re.findall(r"<strong>([^<]+)</strong>", section)
    texts = [html.unescape(t) for t in re.findall(r"<pre><code>(.*?)</code></pre>", section, re.S)]
    return dict(zip(clients, texts))


def test_the_page_shows_a_working_snippet_for_each_client(indexed_client):
    page_html = indexed_client.get("/d/rlx-examples/terminal-basics").get_data(as_text=True)
    snippets = snippets_of(page_html)
    assert list(snippets) == ["Claude Code", "Codex", "Cursor", "VS Code"]
    command = shlex.split(snippets["Claude Code"])
    assert command[:5] == ["claude", "mcp", "add", "--transport", "http"] and command[6] == ENDPOINT
    name = command[5]
    assert re.fullmatch(r"[a-z0-9_-]+", name)
    assert tomllib.loads(snippets["Codex"]) == {"mcp_servers": {name: {"url": ENDPOINT}}}
    assert json.loads(snippets["Cursor"]) == {"mcpServers": {name: {"url": ENDPOINT}}}
    assert json.loads(snippets["VS Code"]) == {"servers": {name: {"type": "http", "url": ENDPOINT}}}
    # With JS off there is no dead button: each Copy button waits, hidden, for the script to show it.
    buttons = re.findall(r"<button[^>]*data-copy[^>]*>", page_html)
    assert len(buttons) == 4 and all(" hidden" in b for b in buttons)


def test_a_dataset_still_indexing_shows_its_snippets_too(client):
    page_html = client.get("/d/rlx-examples/python-bugfix").get_data(as_text=True)
    assert "Reading rlx-examples/python-bugfix" in page_html
    assert snippets_of(page_html)["Cursor"].count("/mcp/d/rlx-examples/python-bugfix") == 1


def test_a_space_page_points_each_client_at_the_bridge_to_its_server(client):
    page_html = client.get("/s/rlx-examples/echo-env").get_data(as_text=True)
    snippets = snippets_of(page_html)
    bridge = "http://localhost/mcp/rlx-examples/echo-env"
    assert list(snippets) == ["Claude Code", "Codex", "Cursor", "VS Code"]
    command = shlex.split(snippets["Claude Code"])
    assert command[:5] == ["claude", "mcp", "add", "--transport", "http"] and command[6] == bridge
    assert tomllib.loads(snippets["Codex"])["mcp_servers"][command[5]] == {"url": bridge}
    assert json.loads(snippets["Cursor"])["mcpServers"][command[5]] == {"url": bridge}
    assert "bridges the Space" in page_html
    buttons = re.findall(r"<button[^>]*data-copy[^>]*>", page_html)
    assert len(buttons) == 4 and all(" hidden" in b for b in buttons)


@needs_chromium
def test_copy_puts_the_snippet_on_the_clipboard_and_it_connects(page, server):  # noqa: F811
    from mcp import Client

    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.goto(server + "/d/rlx-examples/terminal-basics")
    button = page.locator("#mcp [data-copy]").first
    assert button.is_visible()
    button.click()
    page.wait_for_function("() => document.querySelector('#mcp [data-copy]').textContent === 'Copied'")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#mcp pre").first.inner_text()
    url = shlex.split(copied)[-1]
    assert url == f"{server}/mcp/d/rlx-examples/terminal-basics"

    async def describe():
        async with Client(url) as client:
            return await client.call_tool("describe", {})

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        result = pool.submit(asyncio.run, describe()).result(60)
    assert "Terminal Basics" in result.content[0].text


@needs_chromium
@pytest.mark.parametrize("path", ["/d/rlx-examples/terminal-basics", "/s/rlx-examples/echo-env"])
def test_with_js_off_no_copy_button_shows_and_the_snippets_are_there_to_select(client, path):
    from tests.servers import chromium, serve_from

    with chromium() as browser:
        context = browser.new_context(java_script_enabled=False)
        context.route("**/*", serve_from(client))
        page = context.new_page()
        page.goto("http://explorer.test" + path)
        shown = [b.is_visible() for b in page.locator("#mcp [data-copy]").all()]
        snippet = page.locator("#mcp pre").first.inner_text()
        context.close()
    assert shown == [False] * 4  # a button that does nothing without JS is not offered
    assert snippet.startswith("claude mcp add --transport http ")


@pytest.fixture
def owner(make_config, redis_client, hub):
    """alice, signed in, with a private Space and a private dataset of her own on the Hub's stand-in."""
    from rlx import create_app
    from tests.stand_ins.hub_fixtures import ALICE, harbor_dataset

    hub.add_repo("space", "alice/private-space", {"README.md": "---\nsdk: docker\n---\n"}, {"private": True})
    hub.add_repo("dataset", "alice/secret-gym", harbor_dataset("Secret gym", tasks=("s1",)), {"private": True})
    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))
    client = app.test_client()
    signed_in = client.post("/signin/token", data={"token": ALICE}, headers={"Origin": "http://localhost"})
    assert signed_in.status_code == 303
    return client


@pytest.mark.parametrize("path, kind", [("/s/alice/private-space", "Space"), ("/d/alice/secret-gym", "dataset")])
def test_a_private_repository_s_owner_is_told_why_there_is_no_mcp_endpoint_and_never_shown_a_token(owner, path,
                                                                                                  kind):
    from tests.stand_ins.hub_fixtures import ALICE

    page_html = owner.get(path).get_data(as_text=True)
    section = page_html.split('id="mcp"', 1)[1].split("</section>", 1)[0]
    assert f"No MCP endpoint for a private {kind}." in section
    assert "token" in section and "never shown on a page" in section  # the token's handling, said plainly
    assert f"make the {kind} public" in section
    assert "/mcp/" not in section and "<pre>" not in section  # no snippet that could only fail
    assert ALICE not in page_html


def test_what_the_private_dataset_note_says_is_what_an_agent_gets(owner):
    from tests.mcp.test_mcp_protocol import ACCEPT, rpc

    answer = owner.application.test_client().post(  # an agent: no cookie of alice's
        "/mcp/d/alice/secret-gym", json=rpc("initialize", 0, protocolVersion="2025-11-25", capabilities={},
                                            clientInfo={"name": "agent", "version": "1"}), headers=ACCEPT)
    assert answer.status_code == 404
