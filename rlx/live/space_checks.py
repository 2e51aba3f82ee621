"""Live checks, cached in Redis with their check time, so every process shares them and a Space is asked at
most once per MIN_RECHECK_S however many visitors look. "OpenEnv" is claimed only after a fresh, successful check.
"""

from __future__ import annotations

import json
import logging
import time

import redis

from rlx.live.client import SpaceClient
from rlx.live.errors import SpaceRefused
from rlx.live.space_hosts import space_base_url
from rlx.live.introspect import introspect, now_iso
from rlx.sources.base import RepoRecord

log = logging.getLogger("rlx.live")
FRESH_S = 3600  # a check this recent may back an "OpenEnv" claim
MIN_RECHECK_S = 30  # a Space is asked again at most this often, whoever asks
KEEP_S = 7 * 24 * 3600  # the last check is kept this long, shown as "last seen" while a Space sleeps
# A process reuses what Redis said of the Spaces' checks this long (search answers are public for 30 s anyway); a
# check this process stores itself is seen at once.
CLAIMS_REUSE_S = 5.0
LOCK_S = 90  # longer than the slowest check: every call of it is bounded (rlx.live.client)


def _key(space_id: str) -> str:
    return f"rlx:live:check:{space_id}"


def cached_check(db: redis.Redis, space_id: str) -> dict | None:
    raw = db.get(_key(space_id))
    if raw is None:
        return None
    try:
        report = json.loads(raw)
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def cached_checks(db: redis.Redis, space_ids: list[str]) -> list[dict | None]:
    """The last check of each Space, in one round trip (None where there is none or it does not read)."""
    found = []
    for raw in db.mget([_key(i) for i in space_ids]) if space_ids else []:
        try:
            report = json.loads(raw) if raw else None
        except ValueError:
            report = None
        found.append(report if isinstance(report, dict) else None)
    return found


def age_s(report: dict | None) -> float | None:
    if not report or not isinstance(report.get("checked_ts"), (int, float)):
        return None
    return max(0.0, time.time() - report["checked_ts"])


def is_fresh(report: dict | None, within: float = FRESH_S) -> bool:
    age = age_s(report)
    return age is not None and age <= within


def verified_openenv(report: dict | None) -> bool:
    """The only ground for calling a Space OpenEnv: a check under an hour old that found the protocol."""
    return bool(report and report.get("ok") and report.get("openenv") and is_fresh(report))


def check_space(db: redis.Redis, record: RepoRecord, local_hosts=(), force: bool = False,
                max_age: float = FRESH_S) -> dict:
    """The Space's check: the cached one when under `max_age` seconds old (with `force`, or when it failed,
    MIN_RECHECK_S: the floor whoever asks), else a new one. While another process is checking, its previous result (or a
    'checking' placeholder)."""
    cached = cached_check(db, record.id)
    limit = MIN_RECHECK_S if force or not (cached or {}).get("ok") else max(MIN_RECHECK_S, max_age)
    if cached is not None and is_fresh(cached, limit):  # a failed check heals: it is asked again after the floor
        return cached
    try:
        base_url = space_base_url(record, local_hosts)
    except SpaceRefused as exc:
        return {"ok": False, "error": str(exc), "refused": True, "openenv": False, "checked_at": now_iso(),
                "checked_ts": time.time(), "problems": {}}
    if not db.set(f"rlx:live:lock:{record.id}", "1", nx=True, ex=LOCK_S):
        return cached or {"ok": False, "checking": True, "error": "Another visitor's check is running.",
                          "openenv": False, "problems": {}}
    try:
        with SpaceClient(base_url) as client:
            report = introspect(client, (record.card or {}).get("base_path"))
        report["checked_ts"] = time.time()
        db.set(_key(record.id), json.dumps(report, default=str), ex=KEEP_S)
        Claims.stored_here += 1
        log.info("live.checked space=%s ok=%s openenv=%s", record.id, report["ok"], report["openenv"])
        return report
    finally:
        db.delete(f"rlx:live:lock:{record.id}")


def _claims_until(db: redis.Redis, space_ids: list[str]) -> dict[str, float | None]:
    """Until when each Space may be called OpenEnv (None: not at all), read from their last checks in one round
    trip."""
    if not space_ids:
        return {}
    found = {}
    for space_id, raw in zip(space_ids, db.mget([_key(i) for i in space_ids])):
        try:
            report = json.loads(raw) if raw else None
        except ValueError:
            report = None
        # verified_openenv's freshness, as a moment: fresh while now <= checked_ts + FRESH_S
        found[space_id] = report["checked_ts"] + FRESH_S if isinstance(report, dict) and verified_openenv(report) \
            else None
    return found


class Claims:
    """This process's memory of which Spaces may be called OpenEnv, asked of Redis at most every CLAIMS_REUSE_S
    seconds for a Space a page shows (the round trip cost a search request about 0.5 ms of CPU, a seventh of it).
    The claim's end is remembered, not the claim, so a claim still ends when its check is an hour old."""

    stored_here = 0  # checks this process stored: each makes what it remembers stale

    def __init__(self):
        self._until: dict[str, float | None] = {}
        self._asked_at = float("-inf")
        self._stored_seen = Claims.stored_here

    def verified(self, db: redis.Redis, space_ids: list[str]) -> set[str]:
        moment = time.monotonic()
        if moment - self._asked_at >= CLAIMS_REUSE_S or self._stored_seen != Claims.stored_here:
            self._until, self._asked_at, self._stored_seen = {}, moment, Claims.stored_here
        known = self._until
        answers = {i: known[i] for i in space_ids if i in known}
        fetched = _claims_until(db, [i for i in space_ids if i not in known])
        known.update(fetched)
        answers.update(fetched)
        now = time.time()
        return {space_id for space_id, until in answers.items() if until is not None and now <= until}


def verified_now(space_ids: list[str]) -> set[str]:
    """Claims.verified on the app's Redis; with Redis unreachable nothing is verified, and the page still answers."""
    from flask import current_app
    from redis.exceptions import RedisError

    from rlx.queue import get_redis

    try:
        claims = current_app.extensions.setdefault("rlx.claims", Claims())
        return claims.verified(get_redis(), space_ids)
    except (RedisError, RuntimeError, OSError):
        return set()
