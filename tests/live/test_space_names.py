"""A Space's MCP tools and Task API environments are named as the server spells them (a client calls them by that
exact name): not upper-cased like the labels above them, and not written twice."""

from __future__ import annotations

from pathlib import Path

from flask import get_template_attribute

from rlx.adapters.openenv.live_sections import live_sections
from tests.servers import chromium, needs_chromium

CSS = Path(__file__).resolve().parents[2] / "rlx" / "static" / "css"
REPORT = {"ok": True, "openenv": True, "tools": [{"name": "echo_message", "description": "Return the message."}],
          "task_api": {"echo_env": {"error": "/echo_env/splits answered HTTP 501."}}}


@needs_chromium
def test_tool_and_task_api_names_read_as_the_server_spells_them(app):
    with app.test_request_context():
        draw = get_template_attribute("blocks/blocks.html", "section")
        html = "".join(str(draw(s, 3)) for s in live_sections(REPORT, None, True) if s.id in ("tools", "task-api"))
    css = (CSS / "app.css").read_text() + (CSS / "pages.css").read_text()
    with chromium() as browser:
        page = browser.new_page()
        page.set_content(f"<style>{css}</style><main>{html}</main>")
        assert page.locator("dt").all_inner_texts() == ["echo_message", "echo_env"]
        page.context.close()
