"""gzip for every answer a client accepts it for (flask-compress), with JSON at a faster level than pages.

Pages keep level 6: the home page's first response must stay within 12 KB. JSON answers (a page of search cards
is about 22 KB) take level 3, which writes them in half the time for about 7 % more bytes (5.5 KB rather than
5.1 KB for a page of cards); flask-compress has one level for everything, so JSON is compressed here, before its
hook, which then only adds Accept-Encoding to Vary and leaves an answer that already says its encoding alone.
"""

from __future__ import annotations

import gzip

from flask import Flask, request
from flask_compress import Compress

PAGE_LEVEL = 6
JSON_LEVEL = 3
MIN_SIZE = 600  # bytes; smaller answers gain too little to be worth compressing


def init_app(app: Flask) -> None:
    # gzip only, streamed answers too (flask-compress leaves gzip out of streams by default): a streamed sitemap
    # shard is compressed chunk by chunk as it is written, so it stays streamed and memory stays bounded.
    app.config.update(COMPRESS_ALGORITHM=["gzip"], COMPRESS_ALGORITHM_STREAMING=["gzip"],
                      COMPRESS_LEVEL=PAGE_LEVEL, COMPRESS_MIN_SIZE=MIN_SIZE,
                      COMPRESS_MIMETYPES=["text/html", "application/json", "text/css", "application/javascript",
                                          "image/svg+xml", "text/plain", "application/xml"])
    Compress(app)
    app.after_request(_gzip_json)  # registered after flask-compress's hook, so it runs before it


def _gzip_json(response):
    """What flask-compress would do to a JSON answer, at JSON_LEVEL."""
    if (response.mimetype != "application/json" or response.is_streamed or not 200 <= response.status_code < 300
            or "Content-Encoding" in response.headers or (response.content_length or 0) < MIN_SIZE
            or not request.accept_encodings["gzip"]):
        return response
    response.set_data(gzip.compress(response.get_data(), JSON_LEVEL))
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag and not weak:  # the compressed bytes are another representation: flask-compress's naming
        response.set_etag(f"{etag}:gzip")
    return response
