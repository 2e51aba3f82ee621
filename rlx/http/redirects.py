"""Redirects go to our own paths only."""

from __future__ import annotations

import re

# A path on this site: one "/" then no second "/" or "\" (which a browser reads as another host), and only
# printable URL characters: a tab or newline is dropped when Location is written, so "/\t/evil.example" would
# become "//evil.example".
_OWN_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@/?%#]*")
MAX_PATH = 2000


def own_path(target: str | None, default: str = "/") -> str:
    """`target` when it is a path on this site, else `default`."""
    if not target or len(target) > MAX_PATH or not _OWN_PATH.fullmatch(target):
        return default
    return target
