"""An admin's "Stop this run": written to the settings file like every admin action, carried out by the worker
running the rollout, which notices within seconds, tears the sandbox down and ends the run "stopped"."""

from __future__ import annotations

import shutil
import time

import pytest

from rlx.admin import create_admin_app
from rlx.runs.admin_stop import OUTCOME
from tests.runs_fixtures import PROBES, SLEEPER_ALONE, probes_app, probes_folder, processes_matching  # noqa: F401
from tests.runs_fixtures import start_worker
from tests.runs_helpers import launch, wait_for
from tests.admin.test_admin import CAROL, ORG, ORIGIN, people, signed_in  # noqa: F401 (fixtures)
from tests.processes import wait_until

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed"),
              SLEEPER_ALONE]


@pytest.fixture
def carol(probes_app, make_config, probes_folder, people):
    admin = create_admin_app(make_config(RLX_SOURCE=str(probes_folder), HF_ENDPOINT=people.url, ADMIN_ORG=ORG))
    return signed_in(admin, CAROL)


def stop(carol, run_id):
    return carol.post("/admin/rollouts", data={"run": run_id, "action": "stop"}, headers=ORIGIN)


def test_an_admin_stops_a_running_rollout_and_its_worker_tears_the_sandbox_down(probes_app, carol, redis_client):
    probes_app.index_probes()
    worker = start_worker(probes_app, redis_client)
    try:
        run = launch(probes_app, PROBES, "sleeper")
        assert wait_until(lambda: processes_matching("sleep 4343"), timeout=90), "the sandboxed agent never started"
        page = carol.get("/admin/rollouts").text
        assert "Stop this run" in page
        asked = time.monotonic()
        assert stop(carol, run.id).status_code == 303
        ended = wait_for(probes_app, run.id, timeout=30)
        took = time.monotonic() - asked
        assert ended.status == "stopped" and ended.outcome == OUTCOME, (ended.status, ended.outcome)
        assert took < 10, f"the worker took {took:.1f} s to stop the run"
        assert wait_until(lambda: not processes_matching("sleep 4343"), timeout=10), "the sandbox outlived the run"
        assert "stop asked at" not in carol.get("/admin/rollouts").text  # an ended run offers no Stop
        refused = stop(carol, run.id)
        assert refused.status_code == 409 and "already ended" in refused.text
    finally:
        worker.terminate()
        worker.wait(15)


def test_a_run_stopped_while_queued_ends_stopped_when_a_worker_takes_it(probes_app, carol, redis_client):
    probes_app.index_probes()
    run = launch(probes_app, PROBES, "sleeper")  # no worker yet: it waits in the queue
    assert stop(carol, run.id).status_code == 303
    assert f"stop asked at" in carol.get("/admin/rollouts").text
    worker = start_worker(probes_app, redis_client)
    try:
        ended = wait_for(probes_app, run.id, timeout=60)
        assert ended.status == "stopped" and ended.outcome == OUTCOME
        assert not processes_matching("sleep 4343")
    finally:
        worker.terminate()
        worker.wait(15)


def test_a_stop_for_an_unknown_run_is_a_404_and_changes_nothing(probes_app, carol):
    answer = stop(carol, "a" * 12)
    assert answer.status_code == 404
    assert not probes_app.extensions["rlx.store"].settings_path.exists()
