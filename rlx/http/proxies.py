"""Behind proxies: who the client is. Only when the operator says how many proxies they run (RLX_PROXY_HOPS) do
we believe X-Forwarded-For and X-Forwarded-Proto, and then only the entries those proxies wrote (werkzeug's
ProxyFix counts from the right); otherwise anyone could name any address and slip past a rate limit."""

from __future__ import annotations

from werkzeug.middleware.proxy_fix import ProxyFix


def behind_proxies(wsgi_app, hops: int):
    """The app as seen through `hops` trusted proxies (the app itself when there are none)."""
    if hops <= 0:
        return wsgi_app
    # Host is left as the proxy sent it: TrustedHosts checks that one, and a proxy that rewrites Host is
    # configured with RLX_PUBLIC_URL or RLX_TRUSTED_HOSTS instead.
    return ProxyFix(wsgi_app, x_for=hops, x_proto=hops, x_host=0, x_port=0, x_prefix=0)
