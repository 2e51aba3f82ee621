"""Inference Providers' published prices: the router's model list (GET <router>/v1/models), read by the worker.

The router lists, per model, the providers serving it, each with `pricing: {input, output}` in US dollars per
million tokens (a provider may list none). The worker reads it when a router run ends, from the configured router
only (HF_ROUTER_URL, https://router.huggingface.co/v1 unless an operator says otherwise; never a visitor's
endpoint), through the same egress rules as every model call, with a time limit and a size bound. What it read is
kept in Redis for an hour, so a batch of a thousand runs asks once. A list that cannot be read (the router down,
an answer too big or not JSON) is remembered for a minute and gives no prices: the run's cost is then "unknown",
and the run itself is not touched.
"""

from __future__ import annotations

import json
import logging
import threading

import httpx

from rlx.queue.defaults import KEY_PREFIX
from rlx.runs.egress import Egress, guarded_client

log = logging.getLogger("rlx.runs")
CACHE_KEY = f"{KEY_PREFIX}router:prices"
CACHE_S = 60 * 60
FAILED_S = 60  # a router that failed is asked again a minute later, not by every run that ends meanwhile
TIMEOUT = 5.0
MAX_BYTES = 8 * 1024 * 1024  # the real list is a few hundred kB
MAX_MODELS = 5000
MAX_PROVIDERS = 64
Prices = dict[str, dict[str, tuple[float, float]]]  # model id -> provider -> (input, output) USD per token


def router_prices(redis, router_url: str, egress: Egress) -> Prices | None:
    """The prices per token of every listed model's providers; None when the list could not be read."""
    try:
        cached = redis.get(CACHE_KEY)
    except Exception:
        cached = None
    if cached is not None:
        held = json.loads(cached)
        return None if held is None else {m: {p: tuple(v) for p, v in ps.items()} for m, ps in held.items()}
    prices = _fetch(router_url, egress)
    try:
        redis.set(CACHE_KEY, json.dumps(prices), ex=CACHE_S if prices is not None else FAILED_S)
    except Exception:
        pass  # the next run asks again
    return prices


def _fetch(router_url: str, egress: Egress) -> Prices | None:
    try:
        url, accept = router_url.rstrip("/") + "/models", {"Accept": "application/json"}
        with guarded_client(egress, timeout=TIMEOUT) as client:
            with client.stream("GET", url, headers=accept) as answer:
                if answer.status_code != 200:
                    log.info("the router's model list answered HTTP %s: router runs are not priced", answer.status_code)
                    return None
                body = bytearray()
                for chunk in answer.iter_bytes():
                    body += chunk
                    if len(body) > MAX_BYTES:
                        log.info("the router's model list is over %d bytes: router runs are not priced", MAX_BYTES)
                        return None
        return parse_listing(json.loads(body))
    except (httpx.HTTPError, ValueError) as exc:  # ValueError: not JSON, or the egress refused the address
        log.info("the router's model list could not be read (%s): router runs are not priced", type(exc).__name__)
        return None


def parse_listing(listing) -> Prices:
    """Per model and provider, its (input, output) price per token; providers without both prices are left out."""
    out: Prices = {}
    models = listing.get("data") if isinstance(listing, dict) else None
    for model in (models if isinstance(models, list) else [])[:MAX_MODELS]:
        if not isinstance(model, dict) or not isinstance(model.get("id"), str):
            continue
        priced = {}
        for entry in (model.get("providers") or [])[:MAX_PROVIDERS]:
            pricing = entry.get("pricing") if isinstance(entry, dict) else None
            name = entry.get("provider") if isinstance(entry, dict) else None
            if isinstance(name, str) and isinstance(pricing, dict) and _price(pricing.get("input")) is not None \
                    and _price(pricing.get("output")) is not None:
                priced[name] = (_price(pricing["input"]) / 1e6, _price(pricing["output"]) / 1e6)
        if priced:
            out[model["id"]] = priced
    return out


def _price(value) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6
    return float(value) if ok else None


PROVIDER_HEADER = "x-inference-provider"  # the router names, in each answer, the provider that served it
MAX_NAMES = 16


class ServedBy:
    """The providers the router said served one run's model calls, as each answer's header named them."""

    def __init__(self):
        self.calls = 0
        self._names: set[str] = set()
        self._lock = threading.Lock()

    def note(self, headers) -> None:
        name = (headers.get(PROVIDER_HEADER) or "").strip()[:100]
        with self._lock:
            self.calls += 1
            if name and len(self._names) < MAX_NAMES:
                self._names.add(name)

    def providers(self) -> set[str]:
        with self._lock:
            return set(self._names)
