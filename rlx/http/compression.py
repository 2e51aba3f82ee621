"""gzip for every answer a client accepts it for (flask-compress), with JSON and large pages at faster levels.

Pages keep level 6: the home page's first response must fit the first-paint budget. JSON answers (a page of
search cards is about 22 KB) take level 3, which writes them in half the time for about 7 % more bytes (5.5 KB
rather than 5.1 KB for a page of cards). Pages over 64 KB (an environment page with its task list and facets,
about 100 KB) take level 4: 2.2 ms rather than 3.6 ms of a request for about 5 % more bytes (20.5 KB rather than
19.6 KB); their parts that repeat from request to request are compressed once (rlx/http/gzip_parts.py), so a
request compresses only the rest. flask-compress has one level for everything, so those are compressed here, before its hook, which then
only adds Accept-Encoding to Vary and leaves an answer that already says its encoding alone.
"""

from __future__ import annotations

import gzip

from flask import Flask, request
from flask_compress import Compress

from rlx.http.gzip_parts import gzip_with_parts

PAGE_LEVEL = 6
JSON_LEVEL = 3
LARGE_PAGE_LEVEL, LARGE_PAGE = 4, 64_000  # bytes of HTML
MIN_SIZE = 600  # bytes; smaller answers gain too little to be worth compressing


def init_app(app: Flask) -> None:
    # gzip only, streamed answers too (flask-compress leaves gzip out of streams by default): a streamed sitemap
    # shard is compressed chunk by chunk as it is written, so it stays streamed and memory stays bounded.
    app.config.update(COMPRESS_ALGORITHM=["gzip"], COMPRESS_ALGORITHM_STREAMING=["gzip"],
                      COMPRESS_LEVEL=PAGE_LEVEL, COMPRESS_MIN_SIZE=MIN_SIZE,
                      COMPRESS_MIMETYPES=["text/html", "application/json", "text/css", "application/javascript",
                                          "image/svg+xml", "text/plain", "application/xml"])
    Compress(app)
    app.after_request(_gzip_faster)  # registered after flask-compress's hook, so it runs before it


def _gzip_faster(response):
    """What flask-compress would do to a JSON answer or a large page, at JSON_LEVEL or LARGE_PAGE_LEVEL."""
    size = response.content_length or 0
    if response.mimetype == "application/json":
        level = JSON_LEVEL
    elif response.mimetype == "text/html" and size > LARGE_PAGE:
        level = LARGE_PAGE_LEVEL
    else:
        return response
    if (response.is_streamed or not 200 <= response.status_code < 300 or "Content-Encoding" in response.headers
            or size < MIN_SIZE or not request.accept_encodings["gzip"]):
        return response
    # a large page's repeated parts (inlined stylesheets, a kept task list) come compressed already (gzip_parts)
    body = response.get_data()
    response.set_data(gzip_with_parts(body, level) if level == LARGE_PAGE_LEVEL else gzip.compress(body, level))
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag and not weak:  # the compressed bytes are another representation: flask-compress's naming
        response.set_etag(f"{etag}:gzip")
    return response
