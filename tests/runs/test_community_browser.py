"""Community pages and Compare as drawn in Chromium: every heatmap name inside the drawing, however long, with no
empty band above short ones, legible in the dark theme and scrolling in its own box on a phone; Compare's runs in
columns that never run together."""

from __future__ import annotations

import pytest

from tests.servers import evaluate, needs_chromium
from tests.runs.test_community_compare import OTHER_REF, REF, SCIENCE, write_run

LABELS_JS = """() => {
  const svg = document.querySelector('svg.heatmap').getBoundingClientRect();
  const grid = document.querySelector('svg.heatmap rect').getBoundingClientRect();
  const labels = [...document.querySelectorAll('svg.heatmap text')].map(t => t.getBoundingClientRect());
  return {boxes: labels.map(r => [r.left, r.top, r.right, r.bottom]), svg: [svg.left, svg.top, svg.right, svg.bottom], outside: labels.filter(r => r.left < svg.left - 0.5 || r.right > svg.right + 0.5
                                      || r.top < svg.top - 0.5 || r.bottom > svg.bottom + 0.5).length,
          above: Math.min(...labels.map(r => r.top)) - svg.top, gridTop: grid.top - svg.top};
}"""


@needs_chromium
@pytest.mark.parametrize("model", [None, "Qwen/Qwen3-Coder-30B-A3B-Instruct"], ids=["short", "long"])
def test_every_heatmap_label_is_inside_the_drawing_with_no_empty_band(indexed_app, model):
    write_run(indexed_app, agent="oracle", model=None, reward=1.0)
    write_run(indexed_app, ref=OTHER_REF, agent="nop", model=None, reward=0.0)
    if model:
        write_run(indexed_app, ref=REF, model=model, reward=0.5)
    seen = evaluate(indexed_app, f"/community/{SCIENCE}", LABELS_JS)
    assert seen["outside"] == 0, seen  # no name cut at the drawing's edge
    assert seen["above"] < 24  # the highest name starts near the top: no empty band over the grid


@needs_chromium
def test_in_dark_mode_the_names_are_in_the_pages_text_colour_and_many_models_scroll_inside_on_a_phone(indexed_app):
    for n in range(12):  # twelve agent/model columns: 12 × 56 px, wider than a phone
        write_run(indexed_app, model=f"model-{n:02d}", reward=n / 11)
    seen = evaluate(indexed_app, f"/community/{SCIENCE}", """() => ({wide: document.scrollingElement.scrollWidth,
        colours: [getComputedStyle(document.body).color,
                  ...[...document.querySelectorAll('.heat-task, .heat-model')].map(t => getComputedStyle(t).fill)]})""",
                    width=390, scheme="dark")
    text, *names = seen["colours"]
    wide = seen["wide"]
    assert len(names) == 13 and set(names) == {text}  # not the SVG's default black on a dark page
    assert wide <= 390


# Where each cell's words start and end, row by row, measured on the text itself (not the cells' boxes).
WORDS_JS = """() => [...document.querySelectorAll('table.compare tbody tr')].map(tr => [...tr.children].map(cell => {
  const range = document.createRange(); range.selectNodeContents(cell);
  const r = range.getBoundingClientRect(), own = cell.getBoundingClientRect();
  return {left: r.left, right: r.right, cellLeft: own.left};
}))"""


@needs_chromium
def test_compare_keeps_room_between_runs_and_names_each_row_at_its_left(indexed_app):
    a, b = (write_run(indexed_app, reward=reward, model="a-model-with-a-long-name") for reward in (1.0, 0.0))
    rows = evaluate(indexed_app, f"/compare?runs={a.id},{b.id}", WORDS_JS)
    for heading, first, second in rows:
        assert second["left"] - first["right"] >= 12  # the two runs' words never read as one line
        assert heading["left"] - heading["cellLeft"] < 2  # "What happened", "Task"...: flush left, not centred
