"""On a phone the filters fold behind one button (a <details>, so it works with JS off) and the first task or card
comes straight after it; wider, the filters stand beside the results with no button."""

from __future__ import annotations

import pytest

from tests.servers import chromium, needs_chromium, serve_from

PAGES = (("/d/rlx-examples/terminal-basics", "#tasks"), ("/", "#results"))


@needs_chromium
@pytest.mark.parametrize("js", [True, False])
def test_filters_fold_behind_one_button_on_a_phone_and_stand_open_on_a_desktop(indexed_app, js):
    with chromium() as browser:
        for width in (390, 1440):
            context = browser.new_context(viewport={"width": width, "height": 844}, java_script_enabled=js)
            context.route("**/*", serve_from(indexed_app.test_client()))
            page = context.new_page()
            for path, region in PAGES:
                page.goto(f"http://explorer.test{path}")
                fold = page.locator(f"{region} details.facets-fold")
                facet = fold.locator(".facet").first
                first = page.locator(f"{region} li a").first
                if width == 390:
                    assert fold.locator("> summary").is_visible() and not facet.is_visible(), path
                    gap = first.bounding_box()["y"] - fold.bounding_box()["y"]
                    assert gap < 120, (path, gap)  # the button, the count, then the first result
                    fold.locator("> summary").click()
                    assert facet.is_visible(), path
                else:
                    assert not fold.locator("> summary").is_visible() and facet.is_visible(), path
            context.close()
