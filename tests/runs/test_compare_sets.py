"""Compare two sets of rollouts honestly: two real batches (oracle, nop) on the same five tasks, the flips listed,
and the solve rates' difference with its 95% interval and McNemar's exact p-value, each checked against a
computation of our own (closed forms, and the lower end found by bisection), not the app's code."""

from __future__ import annotations

import csv
import html as html_text
import io
import json
import re
from pathlib import Path

import pytest

from rlx import create_app
from rlx.runs import batch as batches
from rlx.runs import paired
from tests.conftest import index_now
from tests.processes import stop_all, wait_or_fail
from tests.runs_fixtures import start_worker
from tests.runs.test_run_pages import OURS, needs_bwrap
from tests.runs_helpers import WROTE_DONE, write_small_task

DATASET = "rlx-tests/five"
# What each verifier rewards: the file the oracle writes, always, never, or its absence (what nop leaves).
VERIFIERS = {
    "wrote-a": WROTE_DONE,
    "wrote-b": WROTE_DONE,
    "always": "echo 1",
    "never": "echo 0",
    "untouched": '[ -e /app/out.txt ] && echo 0 || echo 1',
}


def write_tasks(folder: Path) -> None:
    for name, verdict in VERIFIERS.items():
        write_small_task(folder / "datasets" / DATASET / "tasks" / name, "echo done > /app/out.txt", verdict)


@pytest.fixture
def five_app(make_config, redis_client, tmp_path):
    write_tasks(tmp_path / "source")
    app = create_app(make_config(RLX_SOURCE=str(tmp_path / "source")))
    index_now(app, DATASET)
    return app


def run_batch(app, client, agent: str) -> str:
    response = client.post(f"/d/{DATASET}/batch", data={"agent": agent, "visibility": "public", "cap": "2"},
                           headers=OURS)
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return re.search(r"/b/([a-z0-9]{12})$", response.headers["Location"]).group(1)


def exact_interval(b: int, c: int, n: int) -> tuple[float, float]:
    """Our own: for b = 2 of 3 flips, P(X >= 2) = 3p^2 - 2p^3 and P(X <= 2) = 1 - p^3, each set to 2.5%."""
    assert (b, c) == (2, 1)
    low, up = 0.0, 1.0  # 3p^2 - 2p^3 rises on (0, 1): halve the bracket until it is exact to 1e-12
    while up - low > 1e-12:
        mid = (low + up) / 2
        low, up = (mid, up) if 3 * mid ** 2 - 2 * mid ** 3 < 0.025 else (low, mid)
    high = 0.975 ** (1 / 3)
    return (b + c) / n * (2 * low - 1), (b + c) / n * (2 * high - 1)


@needs_bwrap
def test_two_batches_on_five_tasks_show_the_flips_and_an_exact_paired_interval(five_app, redis_client):
    workers = [start_worker(five_app, redis_client) for _ in range(2)]
    try:
        client = five_app.test_client()
        oracle, nop = run_batch(five_app, client, "oracle"), run_batch(five_app, client, "nop")
        for batch_id in (oracle, nop):
            wait_for_batch(five_app, batch_id)
    finally:
        stop_all(workers)
    link = re.search(r'<a class="compare-batch" href="([^"]+)"', client.get(f"/b/{oracle}").get_data(as_text=True))
    assert f'value="batch:{oracle}"' in client.get(html_text.unescape(link.group(1))).get_data(as_text=True)
    query = f"a=batch:{oracle}&b=batch:{nop}"
    page = client.get(f"/compare/sets?{query}").get_data(as_text=True)
    tally = {k: int(v) for k, v in re.findall(r'<td class="tally-([a-z-]+)">(\d+)</td>', page)}
    assert tally == {"both": 1, "only-a": 2, "only-b": 1, "neither": 1}
    flips = re.findall(r'<span class="flip-task">([a-z-]+)</span>: solved by ([AB]) only', page)
    assert flips == [("untouched", "B"), ("wrote-a", "A"), ("wrote-b", "A")]
    low, high = exact_interval(2, 1, 5)
    assert f"{100 * low:+.1f} pts to {100 * high:+.1f} pts" in page and "+20.0 pts" in page
    assert '<dd class="p-value">1</dd>' in page  # 2 * P(X <= 1 | 3, 1/2) = 2 * 4/8, capped at 1
    assert "the interval holds 0" in page and "McNemar" in page
    assert page.count('class="heat-cell"') == 10 and ">task</text>" in page and ">set</text>" in page

    answer = client.get(f"/compare/sets.json?{query}").get_json()
    assert answer["interval"] == pytest.approx([low, high], abs=1e-9)
    assert answer["rate_a"] == pytest.approx(3 / 5) and answer["rate_b"] == pytest.approx(2 / 5)
    assert answer["overlap"] == pytest.approx(1 / 4)  # "always" of the four tasks either solved
    rows = list(csv.DictReader(io.StringIO(client.get(f"/compare/sets.csv?{query}").get_data(as_text=True))))
    assert {r["task"]: r["category"] for r in rows} == {"wrote-a": "only A", "wrote-b": "only A", "always": "both",
                                                        "never": "neither", "untouched": "only B"}
    lines = [json.loads(x) for x in client.get(f"/compare/sets.jsonl?{query}").get_data(as_text=True).splitlines()]
    assert len(lines) == 5 and all(x["a_solved"] + x["a_failed"] == 1 for x in lines)

    assert client.get("/compare/sets?a=batch:nope&b=batch:x").status_code == 400
    assert client.get("/compare/sets?a=batch:aaaaaaaaaaaa&b=batch:bbbbbbbbbbbb").status_code == 404
    assert client.get(f"/compare/sets?a=agent:oracle&b=agent:nop&env={DATASET}").status_code == 200


def wait_for_batch(app, batch_id: str, timeout: float = 180.0) -> None:
    with app.app_context():
        wait_or_fail(lambda: batches.load(app.extensions["rlx.store"], batch_id).status != "running",
                     f"batch {batch_id} to finish within {timeout} s", timeout, every=0.2)


def test_repeats_that_disagree_and_infrastructure_errors_are_said_and_left_out():
    rows = [{"ref": "t", "kind": "solved", "id": "1"}, {"ref": "t", "kind": "failed", "id": "2"},
            {"ref": "t", "kind": "infrastructure", "id": "3"}, {"ref": "u", "kind": "unobserved", "id": "4"}]
    a = paired.gather(rows)
    b = paired.gather([{"ref": "t", "kind": "solved", "id": "5"}, {"ref": "u", "kind": "solved", "id": "6"}])
    view = paired.compare_sets(a, b)
    assert view["disagree_a"] == ["t"] and view["n"] == 1  # "u" has no counted rollout in A: not a pair
    assert [u["task"] for u in view["unpaired"]] == ["u"]
    assert view["tally"]["only B"] == 1  # one of two counted: not more than half, so not solved by A
    # One flip, B's way: P(X <= 0 | 1, p) = 1 - p = 2.5% puts p in [0, 0.975]; the difference 2p - 1 in [-1, 0.95].
    assert view["interval"] == pytest.approx((-1.0, 0.95), abs=1e-9)
    assert view["p_value"] == 1.0


def test_cost_per_solved_task_counts_every_run_and_is_unknown_when_any_runs_price_is():
    priced = paired.gather([{"ref": "t", "kind": "solved", "id": "1", "cost": 0.03},
                            {"ref": "u", "kind": "failed", "id": "2", "cost": 0.01}])  # its cost counts too
    partly = paired.gather([{"ref": "t", "kind": "solved", "id": "3", "cost": 0.03},
                            {"ref": "u", "kind": "solved", "id": "4", "cost": None, "cost_unknown": 1}])
    view = paired.compare_sets(priced, partly)
    assert view["cost_per_solved_a"] == pytest.approx(0.04) and view["cost_per_solved_b"] == "unknown"
