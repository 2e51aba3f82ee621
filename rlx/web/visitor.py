"""Who a visitor is, until sign-in exists: a random id in the signed session cookie, created on their first run.

Records keep only a hash of it, so the store alone cannot be used to act as someone.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import session


def visitor_id(create: bool = False) -> str | None:
    """The owner id of this browser's runs; None for a browser that never started one (unless `create`)."""
    raw = session.get("visitor")
    if not isinstance(raw, str) or len(raw) < 16:
        if not create:
            return None
        raw = secrets.token_urlsafe(18)
        session["visitor"] = raw
        session.permanent = True
    return "s:" + hashlib.sha256(raw.encode()).hexdigest()[:32]
