"""In real Chromium against gunicorn + gevent: a visitor starts oracle from the task page and watches it to its
reward on the run page, the steps and the reward arriving over SSE without a reload."""

import shutil

import pytest

from tests.servers import browser_page, needs_chromium, server  # noqa: F401  (fixtures)

pytestmark = [
    needs_chromium,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed"),
]


def test_a_visitor_runs_oracle_and_watches_it_to_its_reward(server, running_worker):
    for page in browser_page(width=1280):
        page.goto(server + "/t/rlx-examples/science-puzzles/chemistry/molar-mass-table")
        page.select_option("select[name=agent]", "oracle")
        page.click("form.run-form button[type=submit]")
        page.wait_for_url("**/r/*")
        page.evaluate("window.__sameDocument = true")
        page.wait_for_selector(".run-reward:text-is('1')", timeout=150_000)  # a whole oracle run, on a busy CI machine
        assert page.evaluate("window.__sameDocument") is True  # streamed in, not reloaded
        entries = page.locator("#run-events > li").all_inner_texts()
        assert entries[-3:] == ["The verifier started", "The verifier gave reward 1",
                                "The run finished · Scored by the task's verifier."]
        assert page.inner_text(".run-status").strip() == "Finished"
        assert page.locator("form[action$='/stop']").count() == 0
