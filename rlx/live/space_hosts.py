"""Where a Space's server answers: its own `https://<subdomain>.hf.space`, taken from the Hub's record, and
nowhere else. The one exception is configuration (RLX_SPACE_HOSTS): a subdomain mapped to a loopback address,
for tests and `rlx demo`, which run the server on this machine."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from rlx.live.errors import SpaceRefused
from rlx.sources.base import RepoRecord

SPACE_DOMAIN = "hf.space"
_SUBDOMAIN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\Z")


def space_subdomain(record: RepoRecord) -> str | None:
    """The subdomain the Hub gave this Space (from its `host`), or None when it has no valid one."""
    if not record.host:
        return None
    parsed = urlparse(record.host)
    host = (parsed.hostname or "").lower()
    label, dot, domain = host.partition(".")
    if parsed.scheme != "https" or not dot or domain != SPACE_DOMAIN or not _SUBDOMAIN.match(label):
        return None
    if parsed.port or parsed.username or parsed.password or parsed.path.strip("/") or parsed.query:
        return None
    return label


def public_app_url(record: RepoRecord) -> str | None:
    """The Space's public address as visitors' browsers reach it (what an iframe shows), or None."""
    subdomain = space_subdomain(record)
    return f"https://{subdomain}.{SPACE_DOMAIN}" if subdomain else None


def space_base_url(record: RepoRecord, local_hosts: tuple[tuple[str, str], ...] = ()) -> str:
    """The base URL our server calls for this Space, or SpaceRefused with the reason.

    `local_hosts` are Config.space_hosts: only loopback addresses get there (config.py checks them)."""
    if record.repo_type != "space":
        raise SpaceRefused(f"{record.id} is not a Space.")
    if record.private:
        raise SpaceRefused(f"{record.id} is private: the explorer talks to public Spaces only.")
    subdomain = space_subdomain(record)
    if subdomain is None:
        raise SpaceRefused(f"The Hub gives {record.id} no address of its own on {SPACE_DOMAIN}, so it is not called.")
    return dict(local_hosts).get(subdomain) or f"https://{subdomain}.{SPACE_DOMAIN}"
