"""What a run used: tokens in and out, where the agent or the model relay reports them, and what they cost.

A cost is written only when it is known: the agent priced the calls itself (a positive figure), or litellm's
bundled copy of the providers' published per-token prices knows the model. Otherwise the record says "unknown",
never 0: a visitor's own endpoint or a router model has no price we could read, and 0 would read as free.
"""

from __future__ import annotations

UNKNOWN = "unknown"


def run_usage(agent_result, relay=None, model: str | None = None) -> dict:
    tokens = {}
    if agent_result is not None:
        tokens = {k: v for k, v in (("input_tokens", agent_result.n_input_tokens),
                                    ("output_tokens", agent_result.n_output_tokens)) if v}
    if relay is not None and not tokens:
        tokens = relay.usage()  # what the endpoint reported, where the agent said nothing
    if not tokens:
        return {}
    cost = getattr(agent_result, "cost_usd", None)
    if not (isinstance(cost, (int, float)) and cost > 0):
        cost = published_cost(model, tokens)
    return {**tokens, **({"cost_usd": round(cost, 6)} if cost else {"cost": UNKNOWN})}


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
