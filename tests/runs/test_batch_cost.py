"""A batch's cost per solved task, end to end: terminus-2 in the sandbox, its model reached through Inference
Providers' router (the model stand-in speaking the router's model list and naming the provider that served each
answer), priced by the worker from that list. The figures below are worked out here from the stand-in's prices
and the token counts it reported, not read back from what the app computed."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil

import pyarrow.parquet as pq
import pytest

from tests.processes import stop_all
from tests.runs.test_batch_terminus import (OURS, VISITOR, batch_id_of, hub, runs_of, script,  # noqa: F401
                                            start_batch, three_app, wait_for_batch)
from tests.runs_fixtures import start_worker
from tests.stand_ins.model import ModelStandIn

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("tmux") is None,
                                reason="needs bubblewrap and tmux (.ci/run installs both)")
SERVED_BY = "novita"
# Dollars per million tokens in and out: 100 * 20 + 50 * 42 = 4,100 per call, so figures stay off a rounding edge.
PRICES = {"novita": (20.0, 42.0), "cerebras": (0.5, 1.5)}
IN_PER_CALL, OUT_PER_CALL = 100, 50  # what the stand-in reports in each answer's usage


@pytest.fixture
def router():
    providers = [{"provider": name, "pricing": {"input": i, "output": o}} for name, (i, o) in PRICES.items()]
    stand_in = ModelStandIn(script(), key=VISITOR, router_providers=providers, serves=SERVED_BY).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def workers(three_app, redis_client, router):
    """Workers told where the router is, as the web is: only that address is priced from its list."""
    env = {"RLX_ALLOW_LOOPBACK_MODELS": "1", "HF_ROUTER_URL": router.url}
    processes = [start_worker(three_app, redis_client, env) for _ in range(2)]
    yield processes
    stop_all(processes)


def calls_answered(router) -> int:
    return sum(1 for r in router.requests if r["path"].endswith("/chat/completions"))


def run_one_task_batch(app, router):
    client = app.test_client()
    assert client.post("/signin/token", data={"token": VISITOR}, headers=OURS).status_code == 303
    batch_id = batch_id_of(start_batch(client, model=router.model, q="answer-0", cap="1"))
    page = wait_for_batch(app, client, batch_id)
    _batch, runs = runs_of(app, batch_id)
    return client, page, runs[0], batch_id


def test_a_router_batch_says_what_each_solved_task_cost_at_the_serving_providers_prices(three_app, router, workers):
    client, page, run, batch_id = run_one_task_batch(three_app, router)
    assert run.rewards == {"reward": 1.0}, run.outcome
    calls = calls_answered(router)
    per_in, per_out = PRICES[SERVED_BY]  # novita served it: not the cheapest listed (cerebras)
    cost = calls * (IN_PER_CALL * per_in + OUT_PER_CALL * per_out) / 1e6
    assert run.usage["input_tokens"] == calls * IN_PER_CALL and run.usage["output_tokens"] == calls * OUT_PER_CALL
    shown = re.search(r'<p class="batch-cost">.*?</p>', page, re.S).group(0)
    again = re.search(r'<p class="batch-cost">.*?</p>', client.get(f"/b/{batch_id}").get_data(as_text=True), re.S)
    assert f"${cost:.4f} per solved task" in shown, (shown, run.usage, again.group(0))  # one task, solved: its whole cost
    assert "novita (which served the calls)" in client.get(f"/r/{run.id}").get_data(as_text=True)
    row = next(csv.DictReader(io.StringIO(client.get(f"/b/{batch_id}/results.csv").get_data(as_text=True))))
    assert float(row["cost_usd"]) == pytest.approx(cost) and row["cost_unknown"] == "False"
    assert int(row["input_tokens"]) == calls * IN_PER_CALL and int(row["output_tokens"]) == calls * OUT_PER_CALL
    table = pq.read_table(io.BytesIO(client.get(f"/b/{batch_id}/results.parquet").get_data()))
    assert table.column("cost_usd").to_pylist() == [pytest.approx(cost)]
    line = json.loads(client.get(f"/b/{batch_id}/results.jsonl").get_data(as_text=True).splitlines()[0])
    assert line["cost_usd"] == pytest.approx(cost) and line["judge_calls"] == 0


def test_a_router_whose_price_list_is_down_leaves_the_cost_unknown_and_the_run_fine(three_app, router, workers):
    router.list_answers = 1  # the run's own check of the model answers; the list is down when the run is priced
    client, page, run, _batch_id = run_one_task_batch(three_app, router)
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    assert run.usage["cost"] == "unknown" and "cost_usd" not in run.usage
    assert "unknown per solved task" in page and "$0.0000" not in page
    assert "could not be read" in client.get(f"/r/{run.id}").get_data(as_text=True)
    line = json.loads(client.get(f"/b/{_batch_id}/results.jsonl").get_data(as_text=True).splitlines()[0])
    assert line["cost_usd"] is None and line["cost_unknown"] is True  # never a 0 that reads as free
