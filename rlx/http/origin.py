"""No cross-site writes: every POST, PUT, PATCH or DELETE must come from our own pages.

The browser says where a request comes from in Origin (or, when it sends none, Referer). That origin must be
RLX_PUBLIC_URL's (RLX_ADMIN_URL's on the admin app, when set; behind a TLS proxy the request itself looks like
plain http, so Host cannot tell), or this
request's own when it names a loopback or IP address (only a page served from this very address can). Without
RLX_PUBLIC_URL the request's own origin is accepted: its Host has already been checked against the trusted names
(rlx/http/hosts.py). A request with neither header is refused; endpoints for non-browser clients (MCP) opt out of
that one rule with `checks_origin_itself` and call `same_origin(allow_absent=True)`. Sec-Fetch-Site can only
refuse (cross-site, same-site), never stand in for Origin.
"""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlsplit

from flask import Flask, abort, current_app, request

from rlx.http.hosts import is_local_or_ip

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
REFUSAL = "Cross-site requests may not change anything here: use this site's own pages."


def _origin_of(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    default = {"http": 80, "https": 443}[parts.scheme]
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def own_public_url(app: Flask) -> str | None:
    """Where `app`'s own pages are served: RLX_PUBLIC_URL for the explorer; for the admin app, RLX_ADMIN_URL when
    it is served on an origin of its own (create_admin_app sets OWN_PUBLIC_URL)."""
    return app.config.get("OWN_PUBLIC_URL", app.config["RLX"].public_url)


def app_origins() -> set[str]:
    """The origins our own pages are served from, as far as this request can tell."""
    public = own_public_url(current_app)
    own = _origin_of(request.host_url)
    origins = {_origin_of(public)} if public else {own}
    if public and is_local_or_ip(request.host.rsplit(":", 1)[0].strip("[]").lower()):
        origins.add(own)
    return {o for o in origins if o}


def same_origin(allow_absent: bool = False) -> bool:
    if request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site"):
        return False
    claimed = request.headers.get("Origin")
    if claimed is None:
        claimed = request.headers.get("Referer")
    if claimed is None:
        return allow_absent
    return _origin_of(claimed) in app_origins()


def checks_origin_itself(view):
    """Mark a view whose clients are not browsers (and so send no Origin): the app-wide check leaves it alone."""
    view.checks_origin_itself = True
    return view


def same_origin_only(view):
    """The same check, said explicitly on a view that changes something (the app-wide hook applies it anyway)."""
    @wraps(view)
    def checked(*args, **kwargs):
        if not same_origin():
            abort(403, REFUSAL)
        return view(*args, **kwargs)

    return checked


def init_app(app: Flask) -> None:
    @app.before_request
    def _refuse_cross_site_writes():
        if request.method in SAFE_METHODS:
            return None
        view = app.view_functions.get(request.endpoint or "")
        if view is None or getattr(view, "checks_origin_itself", False):
            return None  # a 404 or 405 follows, or the view checks (MCP)
        if not same_origin():
            abort(403, REFUSAL)
        return None
