"""In real Chromium, on a real server (gunicorn + gevent) whose echo-env Space is a real openenv server: the
Space page asks the server what it offers by itself, files open in place, and with JS off "Check now" works."""

import os
import subprocess
import sys
import time
import urllib.request

import pytest

from rlx.live.localenv import free_port
from tests.test_browser import CHROMIUM

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@pytest.fixture
def server(app, redis_url, openenv_server):
    config = app.config["RLX"]
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir), "RLX_SOURCE": config.source,
           "SESSION_SECRET": "test-secret", "RLX_SPACE_HOSTS": f"rlx-examples-echo-env={openenv_server}"}
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "-b",
                                f"127.0.0.1:{port}", "rlx:create_app()"], env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            break
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(10)


def test_the_space_page_loads_what_the_server_offers_and_opens_files_in_place(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context().new_page()
        page.goto(server + "/s/rlx-examples/echo-env")
        page.evaluate("window.__sameDocument = true")
        page.wait_for_selector("#space-live :text('echo_with_length')", timeout=30_000)
        assert "yes, checked" in page.text_content("#space-live")
        page.click(".tree a:text-is('models.py')")
        page.wait_for_selector("#viewer .viewer-path:text-is('models.py')")
        assert page.evaluate("window.__sameDocument") is True and "f=models.py" in page.url
        browser.close()


def test_with_javascript_off_check_now_asks_the_server(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(java_script_enabled=False).new_page()
        page.goto(server + "/s/rlx-examples/echo-env")
        assert "What the server offers" not in page.text_content("#space-live")  # without htmx nothing loads...
        page.goto(server + "/s/rlx-examples/echo-env?check=1")  # ...until "Check now", a plain link
        assert "echo_with_length" in page.text_content("#space-live")
        browser.close()
