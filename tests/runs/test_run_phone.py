"""A finished run's page on a phone (390 px), in both themes: how it ended comes first, in the first screen; the
timings and the provenance are folded under a line that says what they hold; a long verifier output scrolls inside
its own box instead of stretching the page, so the trajectory is not screens away."""

from __future__ import annotations

import pytest

from rlx.runs import record
from tests.servers import evaluate, needs_chromium
from tests.runs.test_community_compare import write_run

LAYOUT_JS = """() => {
  const box = sel => document.querySelector(sel).getBoundingClientRect();
  const shown = sel => document.querySelector(sel).checkVisibility();
  const log = document.querySelector('.run-verifier');
  const folded = [...document.querySelectorAll('#run-summary details')].filter(d => !d.open)
    .map(d => d.querySelector('summary').innerText);
  return {screen: innerHeight, reward: box('.run-reward').bottom, outcome: box('.run-outcome').bottom,
          folded, provenanceShown: shown('.run-provenance dl'), timingsShown: shown('.run-timings dl'),
          logBox: log.clientHeight, logContent: log.scrollHeight, trajectory: box('#run-events').top,
          pageWidth: document.scrollingElement.scrollWidth, width: innerWidth};
}"""


@needs_chromium
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_finished_run_on_a_phone_shows_its_outcome_first_and_folds_the_rest(indexed_app, scheme):
    run = write_run(indexed_app, steps=("look around", "write the file"))
    with indexed_app.app_context():
        verifier = record.trial_dir(indexed_app.extensions["rlx.store"], run.id) / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "test-stdout.txt").write_text("".join(f"test_case_{n} PASSED\n" for n in range(300)))

    seen = evaluate(indexed_app, f"/r/{run.id}", LAYOUT_JS, width=390, scheme=scheme)

    assert seen["reward"] < seen["screen"] and seen["outcome"] < seen["screen"]  # how it ended, without scrolling
    assert seen["folded"] == ["Timings · whole run 3.50 s",
                              "Provenance · task revision, agent, model, sandbox, versions"]
    assert not seen["provenanceShown"] and not seen["timingsShown"]
    assert seen["logBox"] < seen["screen"] * 0.6 < seen["logContent"]  # 300 lines, scrolled in place
    assert seen["trajectory"] < seen["screen"] * 2  # the steps begin on the second screen at the latest
    assert seen["pageWidth"] <= seen["width"]  # nothing pushes the page sideways
