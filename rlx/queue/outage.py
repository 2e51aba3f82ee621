"""The source's outage as the jobs saw it last, shared through Redis so every page can say it at once.

A job that reads the Hub learns of an outage (any 5xx, 429, a cut connection, a timeout: `Unavailable`) long
before a visitor would: the indexing job of the page being waited on, or the hourly indexer's. It writes one key,
`rlx:source:outage`, with the sentence and when the source said to try again; the key expires then. A first open
whose job is still waiting, failing or just failed reads it, so the page, /api/env and MCP say what failed and when
it will be tried again instead of "waiting".
"""

from __future__ import annotations

import json
import logging
import time

from rlx.queue.defaults import KEY_PREFIX

log = logging.getLogger("rlx.jobs")
KEY = f"{KEY_PREFIX}source:outage"
MAX_CHARS = 400


def note_outage(redis, exc: Exception) -> None:
    """`exc` is the source's Unavailable (its `retry_after` says when to try again). Say, for every page, that the source is failing and when it will be tried again (best effort)."""
    wait = max(1, int(getattr(exc, "retry_after", 30) or 30))
    body = {"message": (str(exc) or "The Hub did not answer.")[:MAX_CHARS], "retry_at": time.time() + wait}
    try:
        redis.set(KEY, json.dumps(body), ex=wait)
    except Exception:  # the job's own failure is what matters; this only says it sooner
        log.warning("could not record the source's outage", exc_info=True)


def current_outage(redis) -> dict | None:
    """{"message", "retry_at", "retry_in"} while an outage is known, else None."""
    try:
        raw = redis.get(KEY)
        found = json.loads(raw) if raw else None
    except Exception:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("retry_at"), (int, float)):
        return None
    return {**found, "retry_in": max(1, round(found["retry_at"] - time.time()))}


def retry_sentence(retry_at: float) -> str:
    """"It is tried again at 06:58:03 UTC (in 25 s).\""""
    when = time.strftime("%H:%M:%S", time.gmtime(retry_at))
    return f"It is tried again at {when} UTC (in {max(1, round(retry_at - time.time()))} s)."
