"""No cross-site writes: a POST must come from our own pages."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlparse

from flask import abort, current_app, request


def app_origins() -> set[str]:
    """The origins this app is reached at: the request's own, and RLX_PUBLIC_URL when set (behind a proxy that
    ends TLS the request itself looks like plain http)."""
    origins = {request.host_url.rstrip("/")}
    public = current_app.config["RLX"].public_url
    if public:
        origins.add(public)
    return origins


def same_origin() -> bool:
    """Sec-Fetch-Site when the browser sends it; else the Origin header must be this app (a browser's
    cross-site form post always carries one)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parsed = urlparse(origin)
    return f"{parsed.scheme}://{parsed.netloc}" in app_origins()


def same_origin_only(view):
    @wraps(view)
    def checked(*args, **kwargs):
        if not same_origin():
            abort(403, "Cross-site requests may not change anything here.")
        return view(*args, **kwargs)

    return checked
