"""The admin app's security headers: the explorer's strict policy on every admin page, and a policy the RQ
dashboard can live with on its own pages only.

The dashboard (a third-party blueprint under /admin/rq/) runs one inline script per page, rendered with the page's
own values, and compiles its row templates with underscore's `_.template`, which builds functions from strings.
So on its HTML pages script-src allows exactly the inline scripts of that response, by their SHA-256 (no
'unsafe-inline'), plus 'unsafe-eval' for the templates. Everything else stays as strict as the explorer's.
"""

from __future__ import annotations

import base64
import hashlib
import re

from flask import Flask, request
from flask_talisman import Talisman

from rlx.http.headers import CSP, PERMISSIONS, send_hsts_behind_https

ADMIN_CSP = {**CSP, "frame-src": "'none'"}  # the admin embeds no Space
RQ_BLUEPRINT = "rq_dashboard"
RQ_CSP = {**ADMIN_CSP, "script-src": "'self' 'unsafe-eval'", "style-src": "'self'"}
# Inline scripts that run: no src attribute, and no type the browser does not execute (the dashboard keeps its
# row templates in <script type="text/template">).
_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)([^>]*)>(.*?)</script\s*>", re.S | re.I)
_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]*)""", re.I)
_EXECUTED_TYPES = ("", "text/javascript", "application/javascript", "module")


def inline_script_hashes(html: str) -> list[str]:
    """CSP hash sources ('sha256-...') of the inline scripts the browser would run in `html`."""
    found = []
    for attributes, body in _INLINE_SCRIPT.findall(html):
        kind = _TYPE.search(attributes)
        if kind and kind.group(1).lower() not in _EXECUTED_TYPES:
            continue
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        found.append(f"'sha256-{digest}'")
    return list(dict.fromkeys(found))


def _policy_text(policy: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in policy.items())


def init_app(app: Flask) -> None:
    # Registered before Talisman, so it runs after Talisman's hook (Flask runs after_request hooks last-first)
    # and replaces the strict policy on the dashboard's pages only.
    @app.after_request
    def _dashboard_policy(response):
        if request.blueprint == RQ_BLUEPRINT and response.mimetype == "text/html" and not response.direct_passthrough:
            hashes = inline_script_hashes(response.get_data(as_text=True))
            policy = {**RQ_CSP, "script-src": " ".join([RQ_CSP["script-src"], *hashes])}
            response.headers["Content-Security-Policy"] = _policy_text(policy)
        return response

    public_url = app.config.get("OWN_PUBLIC_URL") or ""
    send_hsts_behind_https(app)
    Talisman(app, force_https=False, strict_transport_security=False,
             strict_transport_security_include_subdomains=False, content_security_policy=ADMIN_CSP,
             content_security_policy_nonce_in=["script-src", "style-src"], frame_options="DENY",
             referrer_policy="same-origin", permissions_policy=PERMISSIONS,
             session_cookie_secure=public_url.startswith("https://"), session_cookie_samesite="Lax",
             x_content_type_options=True)
