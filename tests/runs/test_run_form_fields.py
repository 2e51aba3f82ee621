"""The run form asks for a model only while terminus-2 is chosen; without JS every field stays (the server then
says which ones the chosen agent does not use)."""

from __future__ import annotations

import re

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


ERROR = "form.run-form label.invalid .field-error"


@needs_chromium
def test_a_form_mistake_is_shown_beside_its_field_and_the_form_is_kept_with_js_and_without(indexed_app):
    """terminus-2 without a usable model: the sentence sits under the Model field, the page stays the task page and
    the visitor's choices stay filled in: htmx swaps the one form back; with JS off the whole page comes back."""
    client = indexed_app.test_client()
    with chromium() as browser:
        for js in (True, False):
            context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=js)
            context.route("**/*", serve_from(client))
            page = context.new_page()
            page.goto(TASK)
            title = page.locator("h1").first.inner_text()
            form = page.locator("form.run-form").first
            form.locator("select[name=agent]").select_option("terminus-2")
            form.locator("input[name=model]").fill("two words")
            form.locator("input[name=endpoint]").fill("https://api.example.com/v1")
            form.locator("input[name=api_key]").fill("sk-typed")
            with page.expect_response(lambda r: r.url.endswith("/run")) as answer:
                form.locator("button[type=submit]").click()
            assert answer.value.status == (200 if js else 400)
            error = page.locator(ERROR)
            error.wait_for()
            assert "terminus-2 needs a model" in error.inner_text(), js
            assert error.locator("xpath=..").locator("input").get_attribute("name") == "model"
            assert page.locator("h1").first.inner_text() == title  # still the task page, not an error page
            assert page.url == TASK if js else page.url == TASK + "/run"
            form = page.locator("form.run-form").first
            assert form.locator("select[name=agent]").input_value() == "terminus-2"
            assert form.locator("input[name=model]").input_value() == "two words"
            assert form.locator("input[name=endpoint]").input_value() == "https://api.example.com/v1"
            assert form.locator("input[name=api_key]").input_value() == ""  # a key is never sent back
            assert "could not be read" not in page.content()
            context.close()


@needs_chromium
def test_a_run_started_from_the_htmx_form_opens_its_run_page(indexed_app):
    client = indexed_app.test_client()
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", serve_from(client))
        context.route("**/events*", lambda route: route.abort())  # the run page's live stream is not under test
        page = context.new_page()
        page.goto(TASK)
        page.locator("form.run-form button[type=submit]").first.click()
        page.wait_for_url(re.compile(r".*/r/[a-z0-9]{12}$"), wait_until="domcontentloaded")
        assert page.locator("form.run-form").count() == 0  # the run page itself, not drawn inside the form
        context.close()
