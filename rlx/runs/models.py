"""Models a visitor brings: an OpenAI-compatible endpoint, checked before use, with its key kept out of the store.

A model is either the visitor's own OpenAI-compatible endpoint or, with no endpoint given, Inference Providers'
router with the signed-in visitor's token (`:fastest` unless the name picks a policy or provider). The endpoint
must be public https: its host resolves only to public addresses (no loopback, private, link-local or reserved
ones), so a run cannot be pointed at this server's own network; the worker's connections are judged again when
they are made (rlx/runs/egress.py). Tests allow loopback by configuration (RLX_ALLOW_LOOPBACK_MODELS), never by a
form field. The key travels in Redis under the run's id, with a time limit, and the job takes it once (GETDEL); a
batch keeps one under its own id and copies it to each run it starts. Redis here is never saved to disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx

from rlx.queue.defaults import KEY_PREFIX
from rlx.runs.agents import needs_model
from rlx.runs.egress import Egress, ModelError, guarded_client

CHECK_TIMEOUT = 5.0
ROUTER_POLICY = ":fastest"
MAX_MODEL_NAME = 200


def check_endpoint_address(url: str, egress: Egress) -> str:
    """The endpoint, normalised (no trailing slash), or ModelError saying why it cannot be used. The worker judges
    the address again at every connection (rlx/runs/egress.py): this check gives the form its clear answer."""
    parsed = urlparse(url)
    if parsed.scheme not in ("https", "http") or not parsed.hostname:
        raise ModelError("The endpoint must be a URL such as https://api.example.com/v1.")
    if parsed.username or parsed.password or parsed.query or parsed.fragment:
        raise ModelError("The endpoint must not carry credentials, a query or a fragment; put the key in its field.")
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        raise ModelError("The endpoint's port must be a number from 1 to 65535.") from None
    addresses = egress.resolve(parsed.hostname, port)
    if egress.allow_loopback and all(a.is_loopback for a in addresses):
        return url.rstrip("/")
    if parsed.scheme != "https":
        raise ModelError("The endpoint must use https.")
    if any(egress.why_refused(a) for a in addresses):
        raise ModelError("The endpoint resolves to a private or local address; only public endpoints are allowed.")
    return url.rstrip("/")


@dataclass
class ModelChoice:
    model: str
    endpoint: str
    key: str | None  # the endpoint's key or the visitor's token: Redis only, never a record

    def secret(self) -> dict:
        return {"endpoint": self.endpoint, "key": self.key}


def choose_model(agent: str, model: str, endpoint: str, key: str | None, visitor_token: str | None,
                 router_url: str, egress: Egress) -> ModelChoice | None:
    """What the run form's model fields ask for: None for an agent that uses no model, else the model and
    where to reach it; ModelError with one sentence when the fields do not fit together."""
    if not needs_model(agent):
        return None  # fields typed before choosing another agent (with JS off they stay on screen) are ignored
    if not model or len(model) > MAX_MODEL_NAME or any(c.isspace() for c in model):
        raise ModelError(f"{agent} needs a model: its name (no spaces), and either an OpenAI-compatible endpoint "
                         "(https://…/v1) with its key, or your Hugging Face sign-in for Inference Providers.", "model")
    if endpoint:
        return ModelChoice(model, check_endpoint_address(endpoint, egress), key)
    if key:
        raise ModelError("An API key goes with an endpoint; to use Inference Providers leave both empty and sign in.", "api_key")
    if not visitor_token:
        raise ModelError(f"{agent} needs a model reachable with your key: sign in to use Inference Providers with "
                         "your Hugging Face account, or give an OpenAI-compatible endpoint (https://…/v1).")
    return ModelChoice(model if ":" in model else model + ROUTER_POLICY, router_url.rstrip("/"), visitor_token)


def _served_as(model: str, served: list) -> bool:
    """The router lists `org/model`; a run asks for `org/model:fastest` (or `:provider`)."""
    return model in served or model.rsplit(":", 1)[0] in served


def check_endpoint_live(url: str, key: str | None, model: str, egress: Egress) -> None:
    """Ask the endpoint for its models before the run spends anything; ModelError when it does not answer well,
    EgressRefused when its name now points somewhere private."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        with guarded_client(egress, timeout=CHECK_TIMEOUT) as client:
            response = client.get(f"{url}/models", headers=headers)
    except httpx.HTTPError as exc:
        raise ModelError(f"The model endpoint did not answer: {type(exc).__name__}.") from None
    if response.status_code in (401, 403):
        raise ModelError("The model endpoint refused the key (HTTP {}).".format(response.status_code))
    if response.status_code != 200:
        raise ModelError(f"The model endpoint answered HTTP {response.status_code} to GET /models.")
    try:
        served = [m.get("id") for m in response.json().get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        raise ModelError("The model endpoint's /models answer is not OpenAI-style JSON.") from None
    if served and not _served_as(model, served):
        raise ModelError(f"The endpoint does not serve {model!r} (it lists {', '.join(map(str, served[:5]))}).")


def secret_key(run_id: str) -> str:
    return f"{KEY_PREFIX}run:{run_id}:model"


def store_secret(redis, run_id: str, endpoint: str, key: str | None, ttl: int = 24 * 60 * 60) -> None:
    redis.set(secret_key(run_id), json.dumps({"endpoint": endpoint, "key": key}), ex=ttl)


def take_secret(redis, run_id: str) -> dict | None:
    raw = redis.getdel(secret_key(run_id))
    return json.loads(raw) if raw else None


def drop_secret(redis, run_id: str) -> None:
    """A run that ends without its job taking the key (stopped while queued, refused by the limits)."""
    redis.delete(secret_key(run_id))


def batch_secret_key(batch_id: str) -> str:
    return f"{KEY_PREFIX}batch:{batch_id}:model"


def store_batch_secret(redis, batch_id: str, secret: dict, ttl: int) -> None:
    redis.set(batch_secret_key(batch_id), json.dumps(secret), ex=ttl)


def lend_batch_secret(redis, batch_id: str, run_id: str, ttl: int = 24 * 60 * 60) -> bool:
    """Copy the batch's model key to one run about to be queued; False when it has expired."""
    raw = redis.get(batch_secret_key(batch_id))
    if raw is None:
        return False
    redis.set(secret_key(run_id), raw, ex=ttl)
    return True


def drop_batch_secret(redis, batch_id: str) -> None:
    redis.delete(batch_secret_key(batch_id))
