"""Where to go after signing in or out: our own paths only."""

from __future__ import annotations

import re

# A path on this site: one leading slash, then no slash or backslash right after it, and nothing a browser or
# Location header would drop or reinterpret (whitespace, control characters, backslashes).
_OWN_PATH = re.compile(r"^/(?![/\\])[\x21-\x7e]{0,1999}$")


def own_path(target: str | None, default: str = "/") -> str:
    if not target or not _OWN_PATH.match(target) or "\\" in target:
        return default
    return target
