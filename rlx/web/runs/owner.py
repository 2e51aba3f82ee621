"""Who owns a run: the signed-in account ("hf:<handle>", from rlx.auth) when there is one; otherwise a random id in
the signed session cookie, created on the browser's first run.

Records keep only a hash of it, so the store alone cannot be used to act as someone.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import abort, redirect, session, url_for

from rlx.auth.visitor import visitor_key


def visitor_id(create: bool = False) -> str | None:
    """The owner id of this visitor's runs; None for an anonymous browser that never started one (unless `create`)."""
    signed_in = visitor_key()
    if signed_in is not None:
        return signed_in
    raw = session.get("visitor")
    if not isinstance(raw, str) or len(raw) < 16:
        if not create:
            return None
        raw = secrets.token_urlsafe(18)
        session["visitor"] = raw
        session.permanent = True
    return "s:" + hashlib.sha256(raw.encode()).hexdigest()[:32]


def owns(thing) -> bool:
    """Whether this visitor started `thing` (a run or a batch: anything with a `visitor` owner id)."""
    return thing.visitor is not None and thing.visitor == visitor_id()


def stop_as_owner(thing, noun: str, stop, page: str, **page_args):
    """A Stop button's POST, for runs and batches alike: only whoever started it may; then back to its page."""
    if not owns(thing):
        abort(403, f"Only whoever started a {noun} may stop it.")
    stop(thing)
    return redirect(url_for(page, **page_args), 303)
