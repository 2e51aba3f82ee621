"""Where an index built with a visitor's token lives: STORAGE_DIR/visitors/<key>/, one folder per token.

The key is an HMAC of the token under the session secret: the store never holds the token, nor anything that finds
it. The snapshot reads STORAGE_DIR/indexes/ only, so nothing on a visitor's shelf ever reaches the catalog, and a
page looks on the shelf of the token asking, after the Hub has said (for that token) that it may read the repository.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from flask import current_app

from rlx.sources.base import RepoRecord
from rlx.store import Store, app_store

SHELVES = "visitors"
_KEY = re.compile(r"^[0-9a-f]{32}$")


def needs_shelf(record: RepoRecord, token: str | None) -> bool:
    """A private or gated repository read with a visitor's token: its index is that visitor's alone."""
    return token is not None and (record.private or record.gated)


def shelf_key(token: str) -> str:
    """The shelf's folder name for this token. Only the web can compute it: workers never hold the session secret,
    so a run on a private dataset is handed its shelf's key with the token (rlx/runs/read_token.py)."""
    secret = current_app.config["RLX"].session_secret.encode()
    return hmac.new(secret, b"rlx shelf\0" + token.encode(), hashlib.sha256).hexdigest()[:32]


def shelf_for(token: str) -> Store:
    return shelf_at(shelf_key(token))


def shelf_at(key: str) -> Store:
    if not _KEY.match(key or ""):
        raise ValueError("not a shelf key")
    return Store(app_store().root / SHELVES / key)
