"""A value withheld from a task once is masked wherever the task's run repeats it: in the agent's steps on the run
page and in the verifier's output, with the one mask, as it is masked in the task's own files."""

from __future__ import annotations

from tests.conftest import index_now

ENV = "rlx-examples/terminal-basics"


def test_the_run_page_masks_the_tasks_withheld_values_in_steps_and_verifier_output(app):
    from rlx.adapters.indexes import load_pack
    from rlx.adapters.withhold import MASK
    from rlx.runs import record
    from rlx.runs.events import run_dir
    from rlx.runs.record import RunRecord
    from rlx.store import write_json

    index_now(app, ENV)
    store = app.extensions["rlx.store"]
    tasks = load_pack(store, ENV)["tasks"]
    ref, entry = next((r, e) for r, e in sorted(tasks.items()) if e.get("_answer_values"))
    value = max(entry["_answer_values"], key=len)
    run = RunRecord(id="r0000000mask", env_id=ENV, ref=ref, agent="nop", visibility="public", status="finished",
                    scored=True, rewards={"reward": 0.0}, outcome="Finished.")
    record.save(store, run)
    trial = record.trial_dir(store, run.id)
    (trial / "verifier").mkdir(parents=True, exist_ok=True)
    (trial / "verifier" / "test-stdout.txt").write_text(f"checked the file: {value}\n1 passed\n")
    write_json(run_dir(store, run.id) / "events.json",  # the archived events of a finished run
               [{"kind": "step", "n": 1, "message": f"I will write {value} into place", "calls": [],
                 "observation": f"wrote {value}"}])
    page = app.test_client().get(f"/r/{run.id}").get_data(as_text=True)
    assert value not in page and "1 passed" in page
    assert f"I will write {MASK} into place" in page and f"checked the file: {MASK}" in page
