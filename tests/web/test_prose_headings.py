"""Headings inside a task's own text (its instruction's "# Title") read as part of that text: smaller than the
page's section headings around it, not the biggest words on the page."""

from __future__ import annotations

from tests.conftest import index_now
from tests.servers import evaluate, needs_chromium

SIZES_JS = """() => {
  const px = el => parseFloat(getComputedStyle(el).fontSize);
  const own = [...document.querySelectorAll('.prose h1, .prose h2')].map(px);
  const sections = [...document.querySelectorAll('.section > h2')].map(px);
  return [own, Math.min(...sections)];
}"""


@needs_chromium
def test_an_instruction_s_own_headings_are_smaller_than_the_page_s_section_headings(app):
    index_now(app, "rlx-examples/shell-katas")
    own, smallest_section = evaluate(app, "/t/rlx-examples/shell-katas/katas/word-frequency", SIZES_JS)
    assert own, "the instruction's '# Word frequency' heading is drawn"
    assert max(own) < smallest_section
