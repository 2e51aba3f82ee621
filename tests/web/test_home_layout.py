"""The home page's results start under the search box when nothing found has a tag (a search matching nothing, a
catalog without tags): no empty Tags column pushes them to the right. With tags, the column is there."""

from __future__ import annotations

import pytest

from tests.servers import chromium, needs_chromium, serve_from

# Where the first line of results starts, where the search box does, the Tags columns, how wide the results are.
LEFTS_JS = """() => [document.querySelector('.result-count').getBoundingClientRect().left,
                     document.querySelector('#q').getBoundingClientRect().left,
                     document.querySelectorAll('aside.facets').length,
                     document.querySelector('.results-main').getBoundingClientRect().width]"""


@needs_chromium
@pytest.mark.parametrize("path, has_tags", [("/?q=zzzz-nothing-matches", False), ("/", True)])
def test_results_start_under_the_search_box_unless_a_tags_column_is_drawn(indexed_client, path, has_tags):
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", serve_from(indexed_client))
        page = context.new_page()
        page.goto(f"http://explorer.test{path}")
        results_left, search_left, asides, results_width = page.evaluate(LEFTS_JS)
        assert asides == (1 if has_tags else 0)
        if has_tags:
            assert results_left > search_left + 100  # beside the Tags column
        else:
            assert results_left == search_left
            assert results_width > 1000  # the whole width of the page's content, not a sidebar's
        context.close()
