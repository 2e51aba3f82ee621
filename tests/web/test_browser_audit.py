"""The browser audit: every kind of page, in Debian's Chromium, at 390, 768 and 1440 px, light and dark, with
JavaScript on and off. No console error, nothing wider than the window, every control reached by Tab with a visible
focus, no WCAG 2.0/2.1 A or AA violation axe-core finds (colour contrast included), and nothing a reader would
trip on (browser_audit.noticeable): no word broken in a table cell, no raw exception text, no two statements that
clash, the open file marked in its tree (after a click too), no first result hidden under the header, a title and
words on every chart.

One server (gunicorn + gevent) on the bundled examples, with a Space whose server is down, a Space whose host does
not resolve, and two finished runs; one browser for the whole module. The console, the width and what a reader
notices are checked at every width and JS setting; Tab and axe, the slow checks, at 1440 px with JS on, once per
page and theme. A screenshot of every page × width × theme × JS lands under
test-artifacts/screenshots/ (docs/TESTING.md: "The browser audit").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rlx import create_app
from rlx.config import Config
from tests import browser_audit
from tests.conftest import EXAMPLES, HARBOR_EXAMPLES, index_now
from tests.processes import free_port
from tests.servers import app_env, chromium, gunicorn, needs_chromium

# One pytest-xdist worker runs the whole audit: one server, one browser, and one screenshot folder it empties first.
pytestmark = [needs_chromium, pytest.mark.xdist_group("browser-audit")]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
WIDTHS = (390, 768, 1440)
SLOW_CHECKS_WIDTH = 1440
ROWS_EXAMPLE = "rlx-examples/math-word-problems"
PACKED_EXAMPLE = "rlx-examples/packed-harbor-tasks"
MIMO_EXAMPLE = "rlx-examples/mimo-release"
TRACES_EXAMPLE = "rlx-examples/agent-traces"
SCIENCE_TASK = "chemistry/molar-mass-table"

# Every page kind: its path (run ids filled in once the runs exist) and the status a visitor gets.
PAGES = {
    "home": ("/", 200),
    "search": ("/?q=puzzles", 200),
    "trending-page-2": ("/?tp=2", 200),
    "harbor-env": ("/d/rlx-examples/terminal-basics", 200),
    "harbor-env-filtered": ("/d/rlx-examples/terminal-basics?f=difficulty:easy#tasks", 200),  # "At a glance"
    "harbor-task": ("/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh", 200),
    "packed-task": (f"/t/{PACKED_EXAMPLE}/train/0", 200),
    "mimo-env": (f"/d/{MIMO_EXAMPLE}", 200),
    "trace": (f"/d/{TRACES_EXAMPLE}/rollouts/0/0", 200),
    "rows-env": (f"/d/{ROWS_EXAMPLE}", 200),
    "row-task": (f"/t/{ROWS_EXAMPLE}/train/5", 200),
    "space": ("/s/rlx-examples/echo-env", 200),
    "space-unreachable": ("/s/rlx-examples/gridworld-demo", 200),  # its *.hf.space host does not resolve here
    "playground": ("/s/rlx-examples/echo-env/play", 200),
    "community": ("/community", 200),
    "community-env": ("/community/rlx-examples/science-puzzles", 200),
    "run": ("/r/{run}", 200),
    "compare": ("/compare?runs={run},{other_run}", 200),
    "compare-help": ("/compare", 200),
    "signin": ("/signin", 200),
    "not-found": ("/d/nobody/nothing-here", 404),
    "bad-request": ("/compare?runs=nope", 400),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory, redis_url):
    """The served app and the ids of its two runs."""
    from tests.runs.test_community_compare import write_run

    root = tmp_path_factory.mktemp("audit")
    app = create_app(Config.from_env({"STORAGE_DIR": str(root / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(EXAMPLES)}))
    for repo_id in (*HARBOR_EXAMPLES, ROWS_EXAMPLE, PACKED_EXAMPLE, MIMO_EXAMPLE, TRACES_EXAMPLE):
        index_now(app, repo_id)
    runs = [write_run(app, ref=SCIENCE_TASK, steps=("look around", "answer"), reward=reward) for reward in (1.0, 0.0)]
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens: the Space's server is down, its offline state shows
    with gunicorn(app_env(app, redis_url, RLX_SPACE_HOSTS=f"rlx-examples-echo-env={down}")) as url:
        yield url, {"run": runs[0].id, "other_run": runs[1].id}


@pytest.fixture(scope="module")
def browser():
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)  # this run's screenshots only
    SCREENSHOTS.mkdir(parents=True)
    with chromium() as browser:
        yield browser


@pytest.mark.parametrize("js", [True, False], ids=["js-on", "js-off"])
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("kind", PAGES)
def test_page(site, browser, kind, theme, js):
    base, runs = site
    path, status = PAGES[kind]
    url = base + path.format(**runs)
    context = browser.new_context(color_scheme=theme, java_script_enabled=js,
                                  viewport={"width": WIDTHS[0], "height": 900})
    page = context.new_page()
    console = []
    page.on("console", lambda message: console.append(message) if message.type == "error" else None)
    page.on("pageerror", lambda error: console.append(error))
    problems = []
    try:
        response = page.goto(url)
        assert response.status == status, f"{kind}: {url} answered {response.status}"
        if js:
            settle(page)
        problems += [f"{WIDTHS[0]} px: {p}" for p in browser_audit.hidden_first_result(page)]  # as it landed
        for width in WIDTHS:  # the same page resized, as a window is: the layout follows, no second load
            page.set_viewport_size({"width": width, "height": 900})
            problems += [f"{width} px: {p}" for p in browser_audit.overflow(page)]
            problems += [f"{width} px: {p}" for p in browser_audit.noticeable(page)]
            page.screenshot(path=SCREENSHOTS / kind / f"{width}-{theme}-js-{'on' if js else 'off'}.png",
                            full_page=True)
            if width == SLOW_CHECKS_WIDTH and js:  # the same controls and colours with JS off, less a few buttons
                load_on_sight(page)
                problems += [f"{width} px: {p}" for p in browser_audit.keyboard(page)]
                problems += [f"{width} px: {p}" for p in browser_audit.axe(page)]
                problems += [f"{width} px: {p}" for p in browser_audit.open_file_marked_after_click(page)]
        problems += [f"console: {text}" for text in console_errors(console, url, status)]
    finally:
        context.close()
    assert not problems, f"{kind} ({theme}, JS {'on' if js else 'off'}):\n" + "\n".join(problems)


def settle(page) -> None:
    """Wait for the requests htmx makes by itself on load (a Space's live check, a progress poll) to land."""
    page.wait_for_function("() => window.htmx && !document.querySelector('.htmx-request')", timeout=15_000)


def load_on_sight(page) -> None:
    """Scroll each region htmx loads when it comes into view (the home page's later cards) into view, and wait
    for it to land: Tab and axe then check the page a reader who scrolled it has, not a placeholder going away."""
    page.evaluate("document.querySelectorAll('[hx-trigger^=intersect]').forEach(e => e.scrollIntoView())")
    page.wait_for_function("() => !document.querySelector('[hx-trigger^=intersect], .htmx-request')", timeout=15_000)
    page.evaluate("window.scrollTo(0, 0)")


def console_errors(messages, url: str, status: int) -> list[str]:
    """The console's errors, less the one Chromium logs for an error page's own status (the page is the point)."""
    texts = []
    for message in messages:
        if isinstance(message, Exception):
            texts.append(f"uncaught {message}")
            continue
        own_status = status >= 400 and message.location.get("url") == url and f"status of {status}" in message.text
        if not own_status:
            texts.append(f"{message.text} ({message.location.get('url')})")
    return texts
