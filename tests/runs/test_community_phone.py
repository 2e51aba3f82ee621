"""The community tables at phone width: the first column (the environment, the run) stays in view while the
columns beside it scroll inside the table, and every column can be scrolled to in full."""

from __future__ import annotations

import pytest

from tests.servers import evaluate, needs_chromium
from tests.runs.test_community_compare import write_run

EDGES_JS = """(sel) => {
  const table = document.querySelector(sel);
  const first = () => table.querySelector('tbody tr td').getBoundingClientRect();
  const before = first().left;
  table.scrollLeft = table.scrollWidth;
  const heads = [...table.querySelectorAll('thead th')];
  const last = heads[heads.length - 1].getBoundingClientRect();
  return {before, after: first().left, lastRight: last.right, width: innerWidth,
          firstRight: first().right, lastLeft: last.left};
}"""


@needs_chromium
@pytest.mark.parametrize("table", [".community-envs", ".community-recent"])
def test_a_community_table_keeps_its_first_column_and_scrolls_the_rest_at_390px(indexed_app, table):
    write_run(indexed_app)
    edges = evaluate(indexed_app, "/community", EDGES_JS, width=390, arg=table)
    assert edges["after"] == edges["before"]  # the first column did not scroll away
    assert edges["lastRight"] <= edges["width"]  # the last column can be brought fully into view
    assert edges["lastLeft"] >= edges["firstRight"] - 1  # beside the first column, not under it
