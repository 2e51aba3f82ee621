"""What a run cost: Inference Providers' prices read from the router's own model list (played by the model stand-in
speaking its shape), the provider that served the run, and the cost per solved task where rollouts are gathered.
A cost that cannot be known is "unknown", never 0 and never a partial sum."""

from __future__ import annotations

import re

import pytest

from rlx.runs.egress import Egress
from rlx.runs.router_prices import CACHE_KEY, FAILED_S, router_prices
from rlx.runs.usage import RouterRun, router_cost
from tests.runs.test_community_compare import write_run
from tests.runs_helpers import SCIENCE
from tests.stand_ins.model import ModelStandIn, action

MODEL = "stand-in-org/stand-in-model"
# Dollars per million tokens, as the router publishes them; "groq" publishes no price.
PROVIDERS = [{"provider": "novita", "pricing": {"input": 30, "output": 63}},
             {"provider": "cerebras", "pricing": {"input": 0.5, "output": 1.5}},
             {"provider": "groq"}]


@pytest.fixture
def router():
    stand_in = ModelStandIn([action("", done=True)], model=MODEL, router_providers=PROVIDERS, serves="novita").start()
    yield stand_in
    stand_in.stop()


def test_the_router_list_gives_each_providers_price_per_token_and_is_asked_once(router, redis_client):
    prices = router_prices(redis_client, router.url, Egress(allow_loopback=True))
    assert prices == {MODEL: {"novita": (30 / 1e6, 63 / 1e6), "cerebras": (0.5 / 1e6, 1.5 / 1e6)}}  # groq: no price
    router.list_answers = 0  # the router's list is down from now on: the copy in Redis answers
    assert router_prices(redis_client, router.url, Egress(allow_loopback=True)) == prices


def test_a_router_whose_list_is_down_gives_no_prices_and_is_asked_again_a_minute_later(router, redis_client):
    router.list_answers = 0
    assert router_prices(redis_client, router.url, Egress(allow_loopback=True)) is None
    assert 0 < redis_client.ttl(CACHE_KEY) <= FAILED_S
    assert router_prices(redis_client, router.url, Egress(allow_loopback=False)) is None  # loopback refused: no error


@pytest.mark.parametrize("model, served, expected", [
    (MODEL + ":fastest", {"novita"}, 1000 * 30 / 1e6 + 100 * 63 / 1e6),  # whoever the answers named
    (MODEL + ":cerebras", set(), 1000 * 0.5 / 1e6 + 100 * 1.5 / 1e6),  # the provider the model's name picks
    (MODEL + ":cheapest", set(), 1000 * 0.5 / 1e6 + 100 * 1.5 / 1e6),
    (MODEL + ":fastest", set(), None),  # nobody said who served it: no guess
    (MODEL + ":groq", set(), None),  # a provider with no published price
    (MODEL + ":fastest", {"novita", "cerebras"}, None),  # served at two prices: no single price is right
    ("other/model:fastest", {"novita"}, None),  # not on the list
])
def test_a_router_run_is_priced_at_the_provider_that_served_it_or_stays_unknown(router, redis_client, model, served,
                                                                               expected):
    prices = router_prices(redis_client, router.url, Egress(allow_loopback=True))
    cost, source = router_cost(model, {"input_tokens": 1000, "output_tokens": 100}, RouterRun(prices, served))
    assert cost == pytest.approx(expected) if expected is not None else cost is None, source
    assert source  # a sentence either way: where the price came from, or why there is none


def board_costs(page: str) -> dict[str, str]:
    return dict(re.findall(r'<td>([^<]+)</td>(?:<td>[^<]*</td>){4}<td class="board-cost">([^<]+)</td>', page))


def test_the_leaderboard_gives_each_agents_cost_per_solved_task_or_says_unknown(indexed_app):
    for reward, cost in ((1.0, 0.004), (0.0, 0.0083), (1.0, 0.0123)):  # 0.0246 for two solved
        run = write_run(indexed_app, model="priced", reward=reward)
        run.usage = {"input_tokens": 100, "output_tokens": 50, "cost_usd": cost, "price_source": "the agent's count"}
        write_run_usage(indexed_app, run)
    for cost in (0.01, None):  # one of its runs has no known price
        run = write_run(indexed_app, model="half-priced", reward=1.0)
        run.usage = {"input_tokens": 100, "cost_usd": cost} if cost else {"input_tokens": 100, "cost": "unknown"}
        write_run_usage(indexed_app, run)
    write_run(indexed_app, agent="oracle", model=None, reward=1.0)  # no model: nothing to price
    page = indexed_app.test_client().get(f"/community/{SCIENCE}").get_data(as_text=True)
    assert board_costs(page) == {"terminus-2 · priced": "$0.0123", "terminus-2 · half-priced": "unknown",
                                 "oracle": "—"}


def write_run_usage(app, run) -> None:
    from rlx.runs import record, runs_db

    with app.app_context():
        store = app.extensions["rlx.store"]
        record.save(store, run)
        runs_db.upsert(store, run)


def test_an_index_from_before_unknown_costs_gains_the_column_and_its_board_still_draws(indexed_app):
    import sqlite3
    from contextlib import closing

    from rlx.runs import runs_db

    write_run(indexed_app, model="priced", reward=1.0)
    store = indexed_app.extensions["rlx.store"]
    with closing(sqlite3.connect(runs_db.index_path(store), isolation_level=None)) as db:
        db.execute("DROP INDEX runs_community")  # as the server before this left it: no costs in its index
        db.execute("CREATE INDEX runs_community ON runs (env_id, agent, model, ref, reward) WHERE visibility='public' "
                   "AND status='finished' AND scored=1 AND purpose IS NULL")
        db.execute("ALTER TABLE runs DROP COLUMN cost_unknown")
        db.execute("PRAGMA user_version=2")
    page = indexed_app.test_client().get(f"/community/{SCIENCE}").get_data(as_text=True)
    assert board_costs(page) == {"terminus-2 · priced": "—"}  # a run with no usage recorded: nothing to price
    with closing(runs_db.connect(store)) as db:
        made = db.execute("SELECT sql FROM sqlite_master WHERE name='runs_community'").fetchone()[0]
    assert "cost, cost_unknown" in made  # the leaderboard's costs are read from the index, not the table
