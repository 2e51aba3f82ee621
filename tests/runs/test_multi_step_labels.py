"""A multi-step run reads as steps: each opens with "Step N · its name", its phases under it, and its own result,
instead of "The agent started / finished / The verifier started" over and over. The feed is driven with the
hook events Harbor's MultiStepTrial sends (its result's step_results grow by one before each step)."""

from __future__ import annotations

import asyncio
import re
from types import SimpleNamespace

from harbor.trial.hooks import TrialEvent

from rlx.runs import events
from rlx.runs.feed import TrialFeed


def _step(name, reward=None, failed=False):
    verdict = SimpleNamespace(rewards={"reward": reward}) if reward is not None else None
    return SimpleNamespace(step_name=name, verifier_result=verdict, exception_info=object() if failed else None)


def test_each_step_is_labelled_with_its_own_result(app, redis_client, tmp_path):
    feed = TrialFeed(redis_client, "run-multi", tmp_path)
    result = SimpleNamespace(step_results=[])

    async def drive():
        for name, reward in (("write-ledger", 1.0), ("repair-ledger", 0.0)):
            result.step_results.append(_step(name))
            for phase in (TrialEvent.AGENT_START, TrialEvent.AGENT_END, TrialEvent.VERIFICATION_START):
                await feed._on_phase(SimpleNamespace(event=phase, result=result))
            result.step_results[-1].verifier_result = SimpleNamespace(rewards={"reward": reward})
        await feed.stop()

    asyncio.run(drive())
    shown = [e for _id, e in events.read(redis_client, "run-multi", count=100)]
    with app.test_request_context():
        from flask import render_template

        html = "".join(render_template("partials/run_event.html", e=e) for e in shown)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Step 1 · write-ledger" in text and "Step 2 · repair-ledger" in text
    assert "Step 1's result: reward 1" in text and "Step 2's result: reward 0" in text
    assert text.index("Step 1's result") < text.index("Step 2 · repair-ledger")  # each verdict under its step
    # every phase line sits under the label of its step
    assert re.fullmatch(r" (Step \d · [\w-]+ The agent started The agent finished The verifier started "
                        r"Step \d's result: reward \d ){2}", text), text


def test_a_single_step_run_keeps_its_plain_phases(app, redis_client, tmp_path):
    feed = TrialFeed(redis_client, "run-single", tmp_path)

    async def drive():
        await feed._on_phase(SimpleNamespace(event=TrialEvent.AGENT_START, result=SimpleNamespace(step_results=None)))
        await feed.stop()

    asyncio.run(drive())
    shown = [e for _id, e in events.read(redis_client, "run-single", count=100)]
    with app.test_request_context():
        from flask import render_template

        html = render_template("partials/run_event.html", e=shown[0])
    assert "The agent started" in html and "Step" not in html
