"""Security headers on every answer, set by flask-talisman: a Content-Security-Policy that runs only our own
script files plus one inline snippet carrying a per-response nonce (the remembered theme, applied before the first
paint without a second request), the inline stylesheet likewise, no framing, no
MIME sniffing, a strict Referrer-Policy, no powerful browser features, and HSTS behind https (the public URL's or
the request's).
"""

from __future__ import annotations

from flask import Flask, request
from flask_talisman import Talisman
from flask_talisman.talisman import ONE_YEAR_IN_SECS

from rlx.http.origin import own_public_url

HSTS = f"max-age={ONE_YEAR_IN_SECS}"

CSP = {
    "default-src": "'self'",
    "script-src": "'self'",  # plus the nonce of the inline theme snippet
    "style-src": "'self'",  # plus the nonce of the inline stylesheet
    # Style attributes carry only CSS variables (bar widths, tree depth) and cannot run code.
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' data:",
    "media-src": "'self' data:",  # the playground plays audio an observation carries as a data: URL
    "connect-src": "'self'",
    "font-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
    "frame-src": "https://*.hf.space",  # a running Space's own app, embedded on its page
}
PERMISSIONS = {feature: "()" for feature in (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb",
    "interest-cohort", "browsing-topics")}


def send_hsts_behind_https(app: Flask) -> None:
    """HSTS when the app's public URL is https, or this request came over https (as ProxyFix reports it when
    RLX_PROXY_HOPS counts the proxies). Not Talisman's: it also believes a raw X-Forwarded-Proto, which anyone can
    send to a plain-http development server (and pin its name to https in their browser for a year)."""
    public_https = (own_public_url(app) or "").startswith("https://")

    @app.after_request
    def _hsts(response):
        if public_https or request.is_secure:
            response.headers["Strict-Transport-Security"] = HSTS
        return response


def init_app(app: Flask) -> None:
    public_url = app.config["RLX"].public_url or ""
    send_hsts_behind_https(app)
    Talisman(
        app,
        force_https=False,  # TLS ends at the proxy in front of us; HSTS tells browsers to stay on https
        strict_transport_security=False,  # send_hsts_behind_https
        strict_transport_security_include_subdomains=False,
        content_security_policy=CSP,
        content_security_policy_nonce_in=["script-src", "style-src"],
        frame_options="DENY",
        referrer_policy="same-origin",
        permissions_policy=PERMISSIONS,
        session_cookie_secure=public_url.startswith("https://"),
        session_cookie_samesite="Lax",
        x_content_type_options=True,
    )
