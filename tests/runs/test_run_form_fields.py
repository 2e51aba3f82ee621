"""The run form asks for a model only while terminus-2 is chosen; without JS every field stays (the server then
says which ones the chosen agent does not use)."""

from __future__ import annotations

from tests.servers import chromium, needs_chromium, serve_from

TASK = "http://explorer.test/t/rlx-examples/terminal-basics/csv-sales-rollup"
MODEL = "form.run-form input[name=model]"


@needs_chromium
def test_the_model_fields_show_only_while_terminus_2_is_the_agent(indexed_app):
    client = indexed_app.test_client()
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", serve_from(client))
        page = context.new_page()
        page.goto(TASK)
        form = page.locator("form.run-form").first
        assert form.locator("select[name=agent]").input_value() == "oracle"
        assert not form.locator("input[name=model]").is_visible()
        assert not form.locator("input[name=endpoint]").is_visible()
        form.locator("select[name=agent]").select_option("terminus-2")
        assert form.locator("input[name=model]").is_visible() and form.locator("input[name=api_key]").is_visible()
        form.locator("input[name=model]").fill("some-model")
        form.locator("select[name=agent]").select_option("nop")
        assert not form.locator("input[name=model]").is_visible()
        assert form.locator("input[name=model]").is_disabled()  # so the value typed is not sent for nop
        context.close()

        plain = browser.new_context(java_script_enabled=False)
        plain.route("**/*", serve_from(client))
        page = plain.new_page()
        page.goto(TASK)
        assert page.locator(MODEL).first.is_visible()
        plain.close()
