"""Server folders and addresses out of any text a visitor may read (/readyz, a run's outcome): every absolute
path, unix socket or drive path becomes `<path>`, and a Redis URL loses everything after its scheme."""

from __future__ import annotations

import re

# An absolute path (/a/b, unix:///a/b.sock, C:\\a): what a server's folders look like inside an error message.
_PATH = re.compile(r"unix://(?:/[\w.@~+-]+)+|(?<![\w.:/])(?:/[\w.@~+-]+){2,}/?|(?<!\w)[A-Za-z]:\\[^\s'\"]+")
_REDIS_URL = re.compile(r"rediss?://\S+")


def without_paths(value):
    """`value` (a string, or dicts and lists of them) with every server path replaced by a placeholder."""
    if isinstance(value, str):
        return _PATH.sub("<path>", _REDIS_URL.sub("redis://<address>", value))
    if isinstance(value, dict):
        return {k: without_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_paths(v) for v in value]
    return value
