"""A heading is drawn only over something: an overview's count group or a filter group with no values is left
out of the page, not shown as a title over nothing."""

from __future__ import annotations

import re

from flask import get_template_attribute

from rlx.adapters import blocks as b
from rlx.adapters.contract import Block, Section


def test_an_overview_group_without_counts_is_not_drawn(app):
    counts = {"label": "Checks by method", "items": [["exact", 3], ["rubric", 1]]}
    raw = Block("stats", [counts, {"label": "Checks by tier", "items": []}], None)  # as a stored index may hold
    for block in (raw, b.stats(raw.data)):
        with app.test_request_context():
            html = str(get_template_attribute("blocks/blocks.html", "section")(Section("summary", "At a glance",
                                                                                       [block])))
        assert re.findall(r"<figcaption>(.*?)</figcaption>", html) == ["Checks by method"]


def test_a_filter_group_without_values_is_not_drawn(app):
    empty = {"label": "Difficulty", "open": True, "values": []}
    full = {"label": "Network", "open": True, "values": [{"value": "public", "n": 2, "on": False, "href": "/d/a/b"}]}
    with app.test_request_context():
        draw = get_template_attribute("partials/facets.html", "facet_group")
        html = str(draw(empty)) + str(draw(full))
    assert re.findall(r"<summary>(.*?)</summary>", html) == ["Network"]
