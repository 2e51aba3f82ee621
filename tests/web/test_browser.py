"""In real Chromium: the theme toggle is remembered, htmx search swaps the list in place, line ranges highlight.

Runs against a real server (gunicorn + gevent, the production path) on the test Redis.
"""

import pytest

from tests.conftest import index_now
from tests.servers import browser_page, chromium, needs_chromium, page, serve, server  # noqa: F401  (fixtures)

pytestmark = needs_chromium


def test_the_theme_toggle_is_remembered_across_pages(page, server):
    page.goto(server + "/")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    page.click("[data-theme-toggle]")
    page.goto(server + "/d/rlx-examples/terminal-basics")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"


def test_typing_in_the_task_search_swaps_the_list_and_keeps_the_state_in_the_url(page, server):
    page.goto(server + "/d/rlx-examples/terminal-basics")
    page.evaluate("window.__sameDocument = true")
    page.fill("#task-q", "nginx")
    page.wait_for_function("() => document.querySelectorAll('.task-row').length === 1")
    assert page.evaluate("window.__sameDocument") is True  # swapped in place, not a reload
    assert "q=nginx" in page.url
    page.reload()
    assert page.locator(".task-row").count() == 1  # the pushed URL is a full page


def test_a_line_range_in_the_url_highlights_those_lines(page, server):
    page.goto(server + "/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh#L2-L4")
    page.wait_for_selector(".line.selected")
    assert page.evaluate("[...document.querySelectorAll('.line.selected')].map(e => e.id)") == ["L2", "L3", "L4"]


def test_clicking_a_file_in_the_tree_opens_it_in_the_viewer_without_a_reload(page, server):
    page.goto(server + "/t/rlx-examples/terminal-basics/csv-sales-rollup")
    page.evaluate("window.__sameDocument = true")
    page.click(".tree a:text-is('task.toml')")
    page.wait_for_selector("#viewer .viewer-path:text-is('task.toml')")
    assert page.evaluate("window.__sameDocument") is True and "f=task.toml" in page.url


def test_the_home_search_swaps_the_results_in_place_and_keeps_the_state_in_the_url(page, server):
    page.goto(server + "/")
    page.evaluate("window.__sameDocument = true")
    page.fill("#q", "puzzles")
    page.wait_for_function("() => document.querySelectorAll('#results .card').length === 1")
    assert page.evaluate("window.__sameDocument") is True and "q=puzzles" in page.url
    page.click("label.chip:has-text('OpenEnv')")
    page.wait_for_function("() => document.querySelector('#results .result-count').textContent.trim().startsWith('0 ')")
    assert "kind=openenv" in page.url


def test_with_javascript_off_the_home_search_is_a_plain_form(server):
    with chromium() as browser:
        page = browser.new_context(java_script_enabled=False).new_page()
        page.goto(server + "/")
        page.fill("#q", "terminal")
        page.click(".search-row button[type=submit]")
        page.wait_for_url("**/?q=terminal**")
        assert page.locator("#results .card").count() == 1


LONG_NAME = ("reconcile_the_quarterly_inventory_snapshots_against_the_warehouse_ledger_and_report_every_discrepancy"
             "_by_sku")


@pytest.fixture
def phone(make_config, redis_client, redis_url):
    """A 390 px wide page on a server of tests/fixtures/fidelity, whose task has a very long unbroken name."""
    from rlx import create_app
    from tests.adapters.test_fidelity import FIXTURES

    app = create_app(make_config(RLX_SOURCE=str(FIXTURES)))
    index_now(app, "fidelity/long-names")
    for url in serve(app, redis_url):
        for phone_page in browser_page(width=390):
            yield phone_page, url


@pytest.mark.parametrize("path", ["/d/fidelity/long-names", f"/t/fidelity/long-names/{LONG_NAME}"])
def test_a_long_unbroken_task_name_wraps_inside_a_phone_screen(phone, path):
    page, url = phone
    page.goto(url + path)
    assert page.locator(f"text={LONG_NAME[:40]}").first.is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing pushes the page sideways
    heading = "h1" if path.startswith("/t/") else ".task-title"
    assert page.evaluate(f"document.querySelector('{heading}').getBoundingClientRect().right") <= 390


def test_the_batch_form_stacks_each_field_under_its_label_like_the_run_form(page, server):
    page.goto(server + "/d/rlx-examples/terminal-basics")
    boxes = page.evaluate("""() => [...document.querySelectorAll('form.batch-form > label')].map(label => {
        const own = label.getBoundingClientRect(), field = label.querySelector('select, input').getBoundingClientRect();
        return {top: own.top, bottom: own.bottom, fieldTop: field.top, textTop: own.top};
    })""")
    assert len(boxes) == 3  # agent, runs at once, visibility
    for above, below in zip(boxes, boxes[1:]):
        assert below["top"] >= above["bottom"]  # one field per line, not three squeezed on one
    for box in boxes:
        assert box["fieldTop"] > box["textTop"] + 8  # the control sits under its label's words


def test_the_community_tables_put_each_heading_over_its_column(app, page, server):
    from tests.runs.test_community_compare import write_run

    write_run(app, reward=0.5)
    page.goto(server + "/community")
    # Where each heading's words and the first row's words start, column by column (text, not cell boxes).
    lefts = page.evaluate("""() => [...document.querySelectorAll('table.community-recent tr')].slice(0, 2).map(row =>
        [...row.children].map(cell => { const r = document.createRange(); r.selectNodeContents(cell);
                                       return r.getBoundingClientRect().left; }))""")
    headings, first_row = lefts
    assert len(headings) == 5
    for heading, value in zip(headings, first_row):
        assert abs(heading - value) < 2  # "Reward" starts where "0.5" starts, not centred above it


_SHEET_RULES = """() => [...document.querySelector('style').sheet.cssRules]
  .map(r => r.cssText.replace(/\\s*,\\s*/g, ','))"""


@pytest.mark.parametrize("path, sheets", [("/", ["app"]), ("/d/rlx-examples/terminal-basics", ["app", "pages"])])
def test_the_inlined_stylesheets_are_read_as_the_files_are(page, server, path, sheets):
    """Chromium reads the page's minified <style> into the very rules it reads from the files as written (a comma's
    spacing inside a value that holds var() is kept as written, so it is left out of the comparison)."""
    from pathlib import Path

    page.goto(server + path)
    inlined = page.evaluate(_SHEET_RULES)
    css = Path(__file__).resolve().parents[2] / "rlx" / "static" / "css"
    page.goto("about:blank")  # away from the page's CSP, which lets only its own nonce style
    page.set_content("<style></style>")
    page.evaluate("text => { document.querySelector('style').textContent = text; }",
                  "".join((css / f"{sheet}.css").read_text() for sheet in sheets))
    assert inlined == page.evaluate(_SHEET_RULES) and len(inlined) > 100
