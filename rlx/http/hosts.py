"""Only our own Host names are answered. A request naming another (DNS rebinding, a forged absolute link, a
redirect built from Host) or an unreadable one (a label past 63 characters made url_for fail on every page) gets
a plain 400 before Flask builds anything from it.

Trusted: loopback names, IP addresses (a page served from elsewhere cannot name them as its own), RLX_PUBLIC_URL's
host, and RLX_TRUSTED_HOSTS.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import re
from urllib.parse import urlparse

_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"{_LABEL}(\.{_LABEL})*\.?")
_PORT = re.compile(r"[0-9]{1,5}")


def split_host(value: str) -> tuple[str, str] | None:
    """(host name lowercased, port) of a Host header, or None when it is not a well-formed one."""
    value = value.strip().lower()
    if value.startswith("["):  # an IPv6 literal
        end = value.find("]")
        host, rest = value[1:end] if end > 0 else "", value[end + 1:] if end > 0 else ""
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
    else:
        host, _, port = value.partition(":")
        rest = f":{port}" if _ else ""
        if not _HOST.fullmatch(host) or len(host) > 253:
            return None
    if rest and not (rest.startswith(":") and _PORT.fullmatch(rest[1:])):
        return None
    return host.rstrip("."), rest[1:]


def is_local_or_ip(host: str) -> bool:
    if host in ("localhost",) or host.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def trusted(host: str, public_url: str | None, extra: tuple[str, ...]) -> bool:
    if is_local_or_ip(host):
        return True
    if public_url and urlparse(public_url).hostname == host:
        return True
    return any(host == name or (name.startswith(".") and (host.endswith(name) or host == name[1:]))
               for name in extra)


@functools.lru_cache(maxsize=256)  # bounded: anyone may send any Host; a few names come with nearly every request
def _answered(raw: str, public_url: str | None, extra: tuple[str, ...]) -> bool:
    """Whether a request naming the Host `raw` is answered (parsing an address for each request was a twentieth
    of a search's time)."""
    parts = split_host(raw)
    return parts is not None and trusted(parts[0], public_url, extra)


class TrustedHosts:
    """WSGI middleware: refuse a request whose Host is unreadable or not ours."""

    def __init__(self, wsgi_app, public_url: str | None, extra: tuple[str, ...]):
        self.wsgi_app, self.public_url, self.extra = wsgi_app, public_url, extra

    def __call__(self, environ, start_response):
        raw = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
        if not _answered(raw, self.public_url, self.extra):
            return self._refuse(environ, start_response)
        return self.wsgi_app(environ, start_response)

    @staticmethod
    def _refuse(environ, start_response):
        message = ("This server does not answer to that Host name: use its own address (an operator can add "
                   "names with RLX_TRUSTED_HOSTS).")
        if environ.get("PATH_INFO", "").startswith("/api/"):
            body = json.dumps({"ok": False, "status": 400, "error": message}).encode()
            kind = "application/json"
        else:
            body, kind = (message + "\n").encode(), "text/plain; charset=utf-8"
        start_response("400 Bad Request", [
            ("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "default-src 'none'"),
        ])
        return [body]
