"""Security headers on every answer: a Content-Security-Policy that runs only our own script files plus one inline
snippet carrying a per-response nonce (the remembered theme, applied before the first paint without a second
request), the inline stylesheet likewise, no framing, no MIME sniffing, a strict Referrer-Policy, no powerful
browser features, and HSTS behind https (the public URL's or the request's).

The headers never change but for the nonce, so their text is written once when the app is made; a request adds
its nonce and sets them (flask-talisman, used before, rebuilt the policy from its parts on every request: a tenth
of a small answer's time).
"""

from __future__ import annotations

import secrets

from flask import Flask, request

from rlx.web.origin import own_public_url

HSTS = "max-age=31556926"  # a year

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
NONCE_IN = ("script-src", "style-src")
PERMISSIONS = {feature: "()" for feature in (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb",
    "interest-cohort", "browsing-topics")}
NONCE_BYTES = 24  # 32 URL-safe characters


def policy_text(policy: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in policy.items())


def csp_nonce() -> str:
    """This response's nonce, for the templates' inline <script> and <style>."""
    return getattr(request, "csp_nonce", "")


def send_hsts_behind_https(app: Flask) -> None:
    """HSTS when the app's public URL is https, or this request came over https (as ProxyFix reports it when
    RLX_PROXY_HOPS counts the proxies). A raw X-Forwarded-Proto proves nothing: anyone can send one to a
    plain-http development server (and pin its name to https in their browser for a year)."""
    public_https = (own_public_url(app) or "").startswith("https://")

    @app.after_request
    def _hsts(response):
        if public_https or request.is_secure:
            response.headers["Strict-Transport-Security"] = HSTS
        return response


def init_app(app: Flask, csp: dict[str, str] = CSP) -> None:
    """The headers on every answer of `app`, with `csp` as its policy; the session cookie is Secure behind an https
    public URL."""
    send_hsts_behind_https(app)
    if (own_public_url(app) or "").startswith("https://") and not app.debug:
        app.config["SESSION_COOKIE_SECURE"] = True
    # The policy's text around the nonce: the nonce joins the pieces.
    marker = "\0"
    policy_pieces = policy_text({name: f"{value} 'nonce-{marker}'" if name in NONCE_IN else value
                                 for name, value in csp.items()}).split(marker)
    without_nonce = policy_text(csp)  # an answer made before its request had a nonce
    fixed = {
        "Permissions-Policy": ", ".join(f"{feature}={allowed}" for feature, allowed in PERMISSIONS.items()),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    }
    app.jinja_env.globals["csp_nonce"] = csp_nonce

    @app.before_request
    def _make_nonce():
        request.csp_nonce = secrets.token_urlsafe(NONCE_BYTES)

    @app.after_request
    def _security_headers(response):
        headers = response.headers
        for name, value in fixed.items():
            headers[name] = value
        nonce = csp_nonce()
        headers["Content-Security-Policy"] = nonce.join(policy_pieces) if nonce else without_nonce
        return response
