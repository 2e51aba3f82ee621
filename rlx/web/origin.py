"""No cross-site writes: a POST must come from our own pages."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlparse

from flask import abort, request


def same_origin() -> bool:
    """Sec-Fetch-Site when the browser sends it; else the Origin header must be this host (a browser's
    cross-site form post always carries one)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parsed = urlparse(origin)
    return f"{parsed.scheme}://{parsed.netloc}" == request.host_url.rstrip("/")


def same_origin_only(view):
    @wraps(view)
    def checked(*args, **kwargs):
        if not same_origin():
            abort(403, "Cross-site requests may not change anything here.")
        return view(*args, **kwargs)

    return checked
