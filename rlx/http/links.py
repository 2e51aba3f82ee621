"""Links made by the hundred on one page (a task list's rows, its facets' values), from one url_for each.

url_for matches the rule and quotes every value on each call, some 20 µs apiece: fifty rows and a hundred facet
values make that milliseconds of a page. The same links are the path url_for gives once, with each value quoted
as werkzeug quotes it (tests/http/test_links.py holds them to url_for's own answers).
"""

from __future__ import annotations

from typing import Callable
from urllib.parse import quote, urlencode

from flask import url_for

_PATH_SAFE = "!$&'()*+,/:;=@"  # werkzeug's converters (BaseConverter.to_url)
_QUERY_SAFE = "!$'()*,/:;?@"  # werkzeug.urls._urlencode, which url_for uses for the arguments left over
_SLOT = "rlx-link-slot"  # stands in for the value while url_for builds the rest of the path


def path_link(endpoint: str, slot: str, **values) -> Callable[[str], str]:
    """url_for(endpoint, **values, slot=x) as a function of x, url_for called once."""
    before, after = url_for(endpoint, **values, **{slot: _SLOT}).split(_SLOT, 1)
    return lambda value: f"{before}{quote(str(value), safe=_PATH_SAFE)}{after}"


def query_link(endpoint: str, **values) -> Callable[[dict], str]:
    """url_for(endpoint, **values, **args) as a function of args (lists give one argument per item, None none)."""
    base = url_for(endpoint, **values)

    def link(args: dict) -> str:
        items = [(key, item) for key, value in args.items()
                 for item in (value if isinstance(value, (list, tuple)) else (value,)) if item is not None]
        return f"{base}?{urlencode(items, safe=_QUERY_SAFE)}" if items else base
    return link
