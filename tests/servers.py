"""The app served for real (gunicorn + gevent, the production path) on loopback, and Debian's Chromium driven by
Playwright: the pieces every browser test and every multi-worker test shares.

Test modules import the fixtures they use by name (`from tests.servers import page, server`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager

import pytest

from rlx.cli import gunicorn_args
from tests.processes import config_env, free_port

# Debian's package, never Playwright's own download (no network here but the package registries).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed")


@contextmanager
def gunicorn(env: dict, workers: int = 1, app: str = "rlx:create_app()", quiet: bool = False,
             ready: str = "/healthz"):
    """`app` under gunicorn on a free loopback port, started with the very arguments `rlx serve` uses (its own
    gevent worker class, which opens the catalog snapshot at boot), with `env` over this process's environment;
    yields its URL once `ready` answers (the admin app has no /healthz), and stops it afterwards."""
    port = free_port()
    process = subprocess.Popen(gunicorn_args("127.0.0.1", port, workers, app), env={**os.environ, **env},
                               stderr=subprocess.DEVNULL if quiet else None)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90  # gunicorn's workers import the app: slow on a loaded machine
        while True:
            try:
                urllib.request.urlopen(url + ready, timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def app_env(app, redis_url: str, **extra: str) -> dict:
    """The environment that makes a served process read the same store, source and Redis as `app`."""
    return config_env(app.config["RLX"], redis_url, **extra)



def serve(app, redis_url: str, **extra: str):
    """The app's config served by gunicorn with gevent, until the test ends (a generator, for fixtures)."""
    with gunicorn(app_env(app, redis_url, **extra)) as url:
        yield url


class _SharedChromium:
    """One headless Chromium (Debian's) per test module, launched when a test first asks for it and closed when the
    module is done (conftest.py): a launch costs about 1.5 s of CPU, and some sixty tests draw pages. Each test
    still gets fresh contexts (their own cookies, storage and cache), closed when it is done; a browser that died
    is launched again."""

    def __init__(self):
        self._playwright = None
        self._browser = None

    def browser(self):
        if self._browser is None or not self._browser.is_connected():
            from playwright.sync_api import sync_playwright

            if self._playwright is None:
                self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        return self._browser

    def stop(self) -> None:
        if self._playwright is not None:
            if self._browser is not None and self._browser.is_connected():
                self._browser.close()
            self._playwright.stop()
        self._playwright = self._browser = None


_SHARED = _SharedChromium()


@contextmanager
def chromium():
    """Headless Chromium for as long as the block runs: the contexts opened on it inside the block are closed at
    its end, so nothing a test did (cookies, storage, open pages) reaches the next one."""
    browser = _SHARED.browser()
    before = list(browser.contexts)
    try:
        yield browser
    finally:
        if browser.is_connected():
            for context in browser.contexts:
                if context not in before:
                    context.close()


def stop_chromium() -> None:
    """Close the shared browser and its Playwright (the end of a test module)."""
    _SHARED.stop()


def serve_from(client, htmx: bool = False):
    """A Playwright route handler answering every request (the page, its stylesheets) from a Flask test client:
    a page drawn as served, without starting a server. With `htmx`, a GET keeps htmx's own headers, so a region
    htmx asks for comes back as that region."""
    def handle(route):
        request = route.request
        path = request.url.split("://", 1)[1].split("/", 1)[1]
        if request.method == "GET":
            headers = {k: v for k, v in request.headers.items() if htmx and k.lower().startswith("hx-")}
            response = client.get("/" + path, headers=headers)
        else:  # a form post (plain or htmx): its body and headers, its page's origin standing for the client's own
            headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "origin", "referer")}
            headers["Origin"] = "http://localhost"
            response = client.open("/" + path, method=request.method, data=request.post_data_buffer,
                                   headers=headers)
        route.fulfill(status=response.status_code, body=response.get_data(),
                      headers={k: v for k, v in response.headers.items()
                               if k.lower() in ("content-type", "location", "hx-redirect")})
    return handle


def evaluate(app, path: str, script: str, width: int = 1280, scheme: str = "light", arg=None):
    """What `script` (called with `arg`) returns on `path`, drawn by Chromium at `width` px in the `scheme` theme,
    the page and its stylesheets answered by `app`'s test client."""
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        context.route("**/*", serve_from(app.test_client()))
        page = context.new_page()
        page.goto(f"http://explorer.test{path}")
        try:
            return page.evaluate(script, arg)
        finally:
            context.close()


def browser_page(width: int = 1280, **context_options):
    """A fresh page `width` px wide in its own browser (a generator, for fixtures)."""
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="light",
                                      **context_options)
        yield context.new_page()


@pytest.fixture
def server(indexed_app, redis_url):
    """The bundled examples, every Harbor example indexed, served for real."""
    yield from serve(indexed_app, redis_url)


@pytest.fixture
def page(server):
    yield from browser_page(width=1280)
