"""The admin as its members see it: a sign-in page that says who may enter, and on a phone a menu that takes one
line and tables that keep to the window."""

from __future__ import annotations

import pytest

from tests.servers import chromium, needs_chromium, serve_from
from tests.admin.test_admin import CAROL, ORG, apps, people, signed_in  # noqa: F401  (fixtures)


def test_the_admin_sign_in_page_says_who_may_enter_and_shows_no_menu_yet(apps):  # noqa: F811
    _, admin = apps
    page = admin.test_client().get("/signin?next=/admin/").text
    assert "Sign in to the admin" in page and f"members of <strong>{ORG}</strong>" in page
    assert "your own datasets" not in page  # the explorer's reason to sign in, not the admin's
    assert 'class="admin-nav"' not in page  # every menu entry would lead back here
    assert 'class="admin-nav"' in signed_in(admin, CAROL).get("/admin/").text


@needs_chromium
@pytest.mark.parametrize("path", ["/admin/", "/admin/indexes"])
def test_on_a_phone_the_admin_menu_is_one_line_and_nothing_is_wider_than_the_window(apps, path):  # noqa: F811
    _, admin = apps
    carol = signed_in(admin, CAROL)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 390, "height": 800})
        context.route("**/*", serve_from(carol))
        page = context.new_page()
        page.goto("http://admin.test" + path)
        tops = page.evaluate("[...document.querySelectorAll('.admin-nav a')].map(a => a.getBoundingClientRect().top)")
        wide = page.evaluate("document.scrollingElement.scrollWidth")
        page.locator(".admin-nav a").last.focus()  # the last entry scrolls into view for a keyboard user
        last = page.evaluate("document.activeElement.getBoundingClientRect().right")
        context.close()
    assert len(tops) == 9 and max(tops) - min(tops) < 2  # nine entries on one line
    assert wide <= 390 and last <= 390
