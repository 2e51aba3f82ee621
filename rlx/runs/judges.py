"""Judge models for model-graded tasks: which one a visitor may pick, and with whose key the worker calls it.

A Harbor task is model-graded here when its `[verifier.env]` names RLX_JUDGE_URL (`RLX_JUDGE_URL =
"${RLX_JUDGE_URL}"`, with RLX_JUDGE_MODEL beside it): its verifier sends the rubric and the agent's work to an
OpenAI-compatible chat-completions URL and reads a score back (the MiMo General twins do). Its run form then
offers a `judge` choice, cut on every request to the admin's pool (`rollouts.judges` in the settings file, else
DEFAULT_JUDGES); a judge outside the pool is refused by the form reader with a 400, so no run starts with one.

Whose key: the operator's when RLX_JUDGE_ENDPOINT is set (the worker holds RLX_JUDGE_KEY in its Config), else the
signed-in visitor's Hugging Face token on Inference Providers' router, handed to the job through Redis under the
run's id and taken once, like a model key (rlx/runs/models.py); a batch's is kept under the batch and copied to each
of its judged runs as it is queued. Either way it reaches only the judge relay
(rlx/runs/judge_relay.py), never the sandbox, the record, the store or a log.
"""

from __future__ import annotations

import dataclasses
import json

from flask import current_app

from rlx.queue.defaults import KEY_PREFIX
from rlx.runs.egress import ModelError

JUDGE_VARIABLE = "RLX_JUDGE_URL"
FIELD = "judge"


def model_graded(task_config: dict | None) -> bool:
    """Whether a Harbor task's config (as the index keeps it: [verifier.env] by name) asks for a judge."""
    names = ((task_config or {}).get("verifier") or {}).get("env") or []
    return JUDGE_VARIABLE in names


def pool() -> list[str]:
    return list(current_app.extensions["rlx.settings"].get().rollouts.judge_pool)


def offer_judges(spec):
    """A run option's field as this request offers it: the judge choice (rlx/adapters/harbor/runoptions.py) gets
    the admin's pool; other fields pass unchanged."""
    if spec.name != FIELD:
        return spec
    judges = pool()
    return dataclasses.replace(spec, choices=judges, default=judges[0] if judges else None)


def judge_secret(config, visitor_token: str | None) -> dict | None:
    """What the job needs to reach the judge, for Redis: None when the operator's endpoint serves judges (the worker
    holds that key itself); ModelError (on the judge field) when neither that nor a sign-in is there."""
    if config.judge_endpoint:
        return None
    if not visitor_token:
        raise ModelError("This task is graded by a judge model, called on Inference Providers with your Hugging Face "
                         "token: sign in to run it.", FIELD)
    return {"endpoint": config.hf_router_url.rstrip("/"), "key": visitor_token}


def secret_key(run_id: str) -> str:
    return f"{KEY_PREFIX}run:{run_id}:judge"


def store_judge_secret(redis, run_id: str, secret: dict, ttl: int = 24 * 60 * 60) -> None:
    redis.set(secret_key(run_id), json.dumps(secret), ex=ttl)


def take_judge_endpoint(redis, run_id: str, config) -> tuple[str, str | None]:
    """(endpoint, key) for the worker's judge relay: the operator's, else the visitor's token taken from Redis once;
    ModelError when it has expired."""
    if config.judge_endpoint:
        return config.judge_endpoint, config.judge_key
    raw = redis.getdel(secret_key(run_id))
    if not raw:
        raise ModelError("This run's judge settings expired while it waited for a worker; start it again.", FIELD)
    secret = json.loads(raw)
    return secret["endpoint"], secret.get("key")


def drop_judge_secret(redis, run_id: str) -> None:
    redis.delete(secret_key(run_id))


def batch_secret_key(batch_id: str) -> str:
    return f"{KEY_PREFIX}batch:{batch_id}:judge"


def store_batch_judge_secret(redis, batch_id: str, secret: dict, ttl: int) -> None:
    """A batch's judge token, kept under the batch for its judged runs (never in the batch record)."""
    redis.set(batch_secret_key(batch_id), json.dumps(secret), ex=ttl)


def lend_batch_judge_secret(redis, batch_id: str, run_id: str, ttl: int = 24 * 60 * 60) -> bool:
    """Copy it to one judged run about to be queued; False when it has expired (the run then ends saying so)."""
    raw = redis.get(batch_secret_key(batch_id))
    if raw is None:
        return False
    redis.set(secret_key(run_id), raw, ex=ttl)
    return True


def drop_batch_judge_secret(redis, batch_id: str) -> None:
    redis.delete(batch_secret_key(batch_id))
