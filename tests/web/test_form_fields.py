"""Fields outside the run, batch and playground forms: the sign-in token box (the explorer's and the admin's) and a
rows dataset's "Open row" split are drawn like the app's own fields in both themes, not as the browser's small grey
default box."""

from __future__ import annotations

import pytest

from rlx.admin import create_admin_app
from tests.conftest import index_now
from tests.servers import chromium, needs_chromium, serve_from

# A field as drawn (background, corner, border colour), beside the look of what it sits next to.
LOOKS_JS = """([field, beside]) => {
  const look = sel => { const s = getComputedStyle(document.querySelector(sel));
                        return [s.backgroundColor, s.borderTopLeftRadius, s.borderTopColor]; };
  return [look(field), look(beside)];
}"""

CASES = [  # (app, path, the field, what it must look like)
    ("explorer", "/signin", "#hf-token", "button[type=submit]"),
    ("admin", "/signin", "#hf-token", "button[type=submit]"),
    ("explorer", "/d/rlx-examples/trivia-table", "#jump-split", "#task-q"),
]


@pytest.fixture
def clients(app, make_config):
    index_now(app, "rlx-examples/trivia-table")  # the "Open row" form shows once the rows are indexed
    return {"explorer": app.test_client(), "admin": create_admin_app(make_config(ADMIN_ORG="rlx-admins")).test_client()}


@needs_chromium
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_sign_in_and_open_row_fields_look_like_the_fields_beside_them(clients, theme):
    with chromium() as browser:
        for app, path, field, beside in CASES:
            context = browser.new_context(color_scheme=theme, viewport={"width": 390, "height": 900})
            context.route("**/*", serve_from(clients[app]))
            page = context.new_page()
            page.goto(f"http://{app}.test{path}")
            drawn, reference = page.evaluate(LOOKS_JS, [field, beside])
            assert drawn == reference, (app, path)
            assert drawn[1] == "8px", (app, path)  # the browser's default box is square
            context.close()
