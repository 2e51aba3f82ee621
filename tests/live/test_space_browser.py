"""In real Chromium, on a real server (gunicorn + gevent) whose echo-env Space is a real openenv server: the
Space page asks the server what it offers by itself, files open in place, and with JS off "Check now" works."""

import pytest

from tests.servers import chromium, needs_chromium, serve

pytestmark = needs_chromium


@pytest.fixture
def server(app, redis_url, openenv_server):
    yield from serve(app, redis_url, RLX_SPACE_HOSTS=f"rlx-examples-echo-env={openenv_server}")


def test_the_space_page_loads_what_the_server_offers_and_opens_files_in_place(server):
    with chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(server + "/s/rlx-examples/echo-env")
        page.evaluate("window.__sameDocument = true")
        page.wait_for_selector("#space-live :text('echo_with_length')", timeout=30_000)
        assert "yes, checked" in page.text_content("#space-live")
        page.click(".tree a:text-is('models.py')")
        page.wait_for_selector("#viewer .viewer-path:text-is('models.py')")
        assert page.evaluate("window.__sameDocument") is True and "f=models.py" in page.url


def test_with_javascript_off_check_now_asks_the_server(server):
    with chromium() as browser:
        page = browser.new_context(java_script_enabled=False).new_page()
        page.goto(server + "/s/rlx-examples/echo-env")
        assert "What the server offers" not in page.text_content("#space-live")  # without htmx nothing loads...
        page.goto(server + "/s/rlx-examples/echo-env?check=1")  # ...until "Check now", a plain link
        assert "echo_with_length" in page.text_content("#space-live")
