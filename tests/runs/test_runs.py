"""Rollouts through a real RQ worker: Harbor's Trial driving the local bubblewrap sandbox, ending in a record."""

from __future__ import annotations

import shutil

import pytest

from rlx.runs import events, record, runs_db
from rlx.runs.view import sandbox_notes
from tests.runs_helpers import SCIENCE, TERMINAL, launch, wait_for

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")


def test_oracle_runs_to_its_reward_through_a_real_worker(indexed_app, running_worker):
    run = launch(indexed_app, SCIENCE, "chemistry/molar-mass-table")
    done = wait_for(indexed_app, run.id)
    assert done.status == "finished", done.outcome
    wait_for(indexed_app, run.id, done=lambda r: (record.run_dir(indexed_app.extensions["rlx.store"], r.id)
                                                  / "events.json").is_file())  # archived just after the end
    assert done.scored and done.rewards == {"reward": 1.0}
    assert set(done.timings) >= {"environment_setup", "agent_execution", "verifier", "total"}
    assert done.job_timeout > 900 + 60  # above the task's own agent and verifier timeouts
    assert done.provenance["harbor"] and "bubblewrap" in done.provenance["sandbox"]
    with indexed_app.app_context():
        store = indexed_app.extensions["rlx.store"]
        rows = runs_db.for_task(store, SCIENCE, "chemistry/molar-mass-table", visitor=None)
        phases = [e.get("phase") for e in events.archived(store, run.id) if e["kind"] == "phase"]
        trial = record.trial_dir(store, run.id)
        assert (trial / "result.json").is_file() and (trial / "verifier" / "reward.txt").read_text().strip() == "1"
    assert rows == []  # private to its (absent) owner: the index answers per visitor
    assert phases == ["environment-start", "agent-start", "agent-end", "verification-start"]


def test_nop_is_scored_zero_and_the_skipped_package_install_is_told(indexed_app, running_worker):
    run = launch(indexed_app, TERMINAL, "fix-backup-script", agent="nop", visibility="public")
    done = wait_for(indexed_app, run.id)
    assert done.status == "finished" and done.scored and done.rewards == {"reward": 0.0}
    with indexed_app.app_context():
        notes = sandbox_notes(record.trial_dir(indexed_app.extensions["rlx.store"], run.id))
    assert len(notes) == 1 and "apt-get install" in notes[0]  # RUN apt-get needs the network and a writable /usr
    page = indexed_app.test_client().get(f"/r/{run.id}").get_data(as_text=True)
    assert "Dockerfile RUN skipped" in page
    # the verifier printed the file list it expected; the page keeps its verdict and withholds that line
    verifier = (record.trial_dir(indexed_app.extensions["rlx.store"], run.id) / "verifier" / "test-stdout.txt")
    assert "expected ['MANIFEST'" in verifier.read_text()
    assert "FAIL" in page and "MANIFEST&#39;, &#39;meeting" not in page and "withheld: they may show" in page
