"""What a run used: tokens in and out, where the agent or the model relay reports them, and what they cost.

A cost is written only when it is known, with `price_source` saying where its price came from:
- a run through Inference Providers' router is priced from the router's own model list (rlx/runs/router_prices.py),
  at the prices of the provider that served it;
- any other run: the agent priced the calls itself (a positive figure), or litellm's bundled copy of the providers'
  published per-token prices knows the model.
Otherwise the record says "unknown", never 0 (0 would read as free), and `price_source` says why.

A model-graded run's judge calls are priced the same way (`judge_*` beside the agent's figures) and counted in the
run's `cost_usd`: the judge was spent to get that reward, so a cost per solved task without it would read low.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlx.runs.router_prices import Prices

UNKNOWN = "unknown"
ROUTER_POLICIES = ("fastest", "cheapest", "preferred")  # suffixes that choose a provider by a rule, not by name


@dataclass
class RouterRun:
    """A run whose model was reached through the router: the router's prices (None: the list could not be read)
    and the providers its answers said served the calls."""
    prices: Prices | None
    served: set[str] = field(default_factory=set)


def run_usage(agent_result, relay=None, model: str | None = None, router: RouterRun | None = None,
              calls: int = 0) -> dict:
    """The record's `usage`. `calls`: how many model answers the worker saw (a run that made some but was told no
    token counts has an unknown cost; a run that made none used nothing and records nothing)."""
    tokens = {}
    if agent_result is not None:
        tokens = {k: v for k, v in (("input_tokens", agent_result.n_input_tokens),
                                    ("output_tokens", agent_result.n_output_tokens)) if v}
    if relay is not None and not tokens:
        tokens = relay.usage()  # what the endpoint reported, where the agent said nothing
    if not tokens:
        return {"cost": UNKNOWN, "price_source": "the model reported no token counts"} if calls else {}
    if router is not None:
        cost, source = router_cost(model or "", tokens, router)
    else:
        cost, source = _own_cost(agent_result, model, tokens)
    if cost is None:
        return {**tokens, "cost": UNKNOWN, "price_source": source}
    return {**tokens, "cost_usd": round(cost, 6), "price_source": source}


def with_judge(usage: dict, tokens: dict, calls: int, judge: str, router: RouterRun | None) -> dict:
    """`usage` with the judge's calls added: their tokens, their cost (`judge_cost_usd`, or "unknown" with
    `judge_price_source` saying why), and the run's whole cost over both. A judge never called adds nothing."""
    if not calls:
        return usage
    out = {**usage, "judge_input_tokens": tokens.get("input_tokens", 0),
           "judge_output_tokens": tokens.get("output_tokens", 0)}
    if not tokens:
        cost, source = None, "the judge reported no token counts"
    elif router is not None:
        cost, source = router_cost(judge, tokens, router)
    else:
        cost = published_cost(judge, tokens)
        source = ("litellm's bundled copy of the providers' published prices" if cost
                  else "no published price for this judge")
    out["judge_price_source"] = source
    if cost is None:
        out["judge_cost"] = UNKNOWN
        out.pop("cost_usd", None)
        out["cost"] = UNKNOWN  # the whole run's cost cannot be known either
        return out
    out["judge_cost_usd"] = round(cost, 6)
    if usage.get("cost") != UNKNOWN:
        out["cost_usd"] = round(usage.get("cost_usd", 0.0) + cost, 6)
    return out


def _own_cost(agent_result, model: str | None, tokens: dict) -> tuple[float | None, str]:
    cost = getattr(agent_result, "cost_usd", None)
    if isinstance(cost, (int, float)) and cost > 0:
        return cost, "the agent's own count"
    cost = published_cost(model, tokens)
    if cost:
        return cost, "litellm's bundled copy of the providers' published prices"
    return None, "no published price for this model"


def router_cost(model: str, tokens: dict, router: RouterRun) -> tuple[float | None, str]:
    """(cost, where its price came from) for a router run; (None, why not) when it cannot be known."""
    if router.prices is None:
        return None, "the router's price list could not be read"
    name, _, suffix = model.partition(":")
    listed = router.prices.get(name)
    if not listed:
        return None, f"the router's price list gives no price for {name}"
    # Whose price: the provider the router says served the calls (its x-inference-provider header) comes first,
    # since that is who billed them; without that, a `:provider` suffix names it, and `:cheapest` is the listed
    # provider that would cost least for these tokens. `:fastest` or `:preferred` with no report leave no way to
    # know which provider served, so the cost stays unknown rather than guessed from someone's price.
    if router.served:
        if len({listed.get(p) for p in router.served}) > 1:
            names = ", ".join(sorted(router.served))
            return None, f"the calls were served by providers at different prices ({names})"
        provider, how = sorted(router.served)[0], "which served the calls"
    elif suffix and suffix not in ROUTER_POLICIES:
        provider, how = suffix, "named in the model"
    elif suffix == "cheapest":
        provider, how = min(listed, key=lambda p: _at(listed[p], tokens)), "the cheapest listed"
    else:
        return None, "the router did not say which provider served the calls"
    price = listed.get(provider)
    if price is None:
        return None, f"the router's price list gives no price for {name} from {provider}"
    return _at(price, tokens), (f"Inference Providers' price list: {provider} ({how}), ${price[0] * 1e6:g} in and "
                                f"${price[1] * 1e6:g} out per million tokens")


def _at(price: tuple[float, float], tokens: dict) -> float:
    return tokens.get("input_tokens", 0) * price[0] + tokens.get("output_tokens", 0) * price[1]


def published_cost(model: str | None, tokens: dict) -> float | None:
    """The cost at the prices litellm ships (its local copy: workers read no price list from the internet)."""
    if not model:
        return None
    try:
        import litellm

        prices = litellm.model_cost.get(model) or litellm.model_cost.get(model.rsplit("/", 1)[-1]) or {}
    except Exception:
        return None
    per_in, per_out = prices.get("input_cost_per_token"), prices.get("output_cost_per_token")
    if not (isinstance(per_in, (int, float)) and isinstance(per_out, (int, float)) and (per_in or per_out)):
        return None
    return tokens.get("input_tokens", 0) * per_in + tokens.get("output_tokens", 0) * per_out


def cost_per_solved(costs, solved: int) -> float | str | None:
    """The cost of a set of runs per solved task: every run's cost summed (each run's, failed or not: all of it was
    spent to get those solves), over the tasks solved. "unknown" when any run's cost is unknown (a partial sum would
    read as a real, too-low figure); None when nothing was solved or no run was priced (an agent with no model).
    `costs`: per run, its cost in dollars, UNKNOWN, or None (the run used no model)."""
    costs = list(costs)
    priced = [float(c) for c in costs if c is not None and c != UNKNOWN]
    return per_solved(sum(priced), len(priced), sum(1 for c in costs if c == UNKNOWN), solved)


def per_solved(total: float, priced: int, unknown: int, solved: int) -> float | str | None:
    """`cost_per_solved` from sums (a leaderboard's SQL gives these): `priced` runs cost `total` dollars in all,
    `unknown` runs have no known cost."""
    if unknown:
        return UNKNOWN
    return total / solved if priced and solved else None


def cost_of(usage: dict | None) -> float | str | None:
    """One run's cost for `cost_per_solved`, from its record's usage."""
    usage = usage or {}
    if isinstance(usage.get("cost_usd"), (int, float)):
        return float(usage["cost_usd"])
    return UNKNOWN if usage.get("cost") == UNKNOWN else None


def cost_of_row(row: dict) -> float | str | None:
    """One run's cost for `cost_per_solved`, from its row in the runs index (`cost`, `cost_unknown`)."""
    if row.get("cost") is not None:
        return float(row["cost"])
    return UNKNOWN if row.get("cost_unknown") else None
