"""A metadata list leaves out what a dataset filled with a placeholder ("Author's email: unknown")."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.key_labels import labelled


def test_metadata_written_as_unknown_is_not_shown_and_real_values_are(app):
    block = b.kv(labelled([("author_name", "Terminal-Bench Community"), ("author_email", "unknown"),
                           ("difficulty", " N/A "), ("network", "none")]))
    with app.app_context():
        html = app.jinja_env.from_string('{% from "blocks/blocks.html" import kv %}{{ kv(b) }}').render(b=block)
    assert "Terminal-Bench Community" in html
    assert "author_email" not in html and "unknown" not in html and "Difficulty" not in html
    assert "<dd>none</dd>" in html  # "none" is a value (no network), not a placeholder
