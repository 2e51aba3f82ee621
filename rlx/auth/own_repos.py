"""The signed-in visitor's own datasets and Spaces, private ones included, asked of the Hub with their token.

Kept per process for FRESH_S under a digest of the token (never the token itself), so a page view does not list the
Hub each time; a listing never outlives the token's session and is never shared between tokens.
"""

from __future__ import annotations

import hashlib
import threading
import time

from flask import current_app, url_for

from rlx.auth.session import Account
from rlx.sources.errors import SourceError
from rlx.sources import app_source

FRESH_S = 30.0
MAX_EACH = 100  # datasets, and Spaces, per visitor
MAX_VISITORS = 512

_lock = threading.Lock()
_cache: dict[str, tuple[float, list[dict]]] = {}


def my_repos(account: Account) -> tuple[list[dict], str | None]:
    """(cards, None), or ([], why) when the source cannot list them (a folder source has no accounts)."""
    source = app_source()
    lister = getattr(source, "list_by_author", None)
    if lister is None:
        return [], "This explorer reads a local folder, which has no accounts."
    key = hashlib.sha256(f"{id(current_app)}:{account.token}".encode()).hexdigest()
    now = time.monotonic()
    with _lock:
        hit = _cache.get(key)
    if hit and now - hit[0] < FRESH_S:
        return hit[1], None
    try:
        records = [*lister("dataset", account.name, account.token, MAX_EACH),
                   *lister("space", account.name, account.token, MAX_EACH)]
    except SourceError as exc:
        return [], f"Your repositories could not be listed right now ({exc})."
    cards = [_card(r) for r in records]
    with _lock:
        _cache[key] = (now, cards)
        while len(_cache) > MAX_VISITORS:
            _cache.pop(next(iter(_cache)))
    return cards, None


def _card(record) -> dict:
    is_space = record.repo_type == "space"
    return {
        "key": f"space:{record.id}" if is_space else record.id,
        "repo_type": record.repo_type,
        "title": record.pretty_name,
        "private": record.private,
        "gated": record.gated,
        "modified": record.last_modified,
        "url": url_for("spaces.space_page" if is_space else "envs.env_page", org=record.org, name=record.name),
    }
