"""A large page's gzip is laid from pieces (its repeated parts compressed once: rlx/http/gzip_parts.py); a browser
must still read exactly the page. Here every page counts as large, so the small examples take that path."""

from __future__ import annotations

import gzip
import re
import zlib

import pytest

from rlx.http import compression

PAGES = ["/d/rlx-examples/terminal-basics", "/d/rlx-examples/terminal-basics?f=difficulty:easy",
         "/t/rlx-examples/terminal-basics/csv-sales-rollup", "/"]


def _same_page(html: bytes) -> bytes:
    return re.sub(rb'nonce="[^"]+"', b'nonce=""', html)  # the one thing that differs between two answers


@pytest.mark.parametrize("path", PAGES)
def test_a_page_laid_from_kept_pieces_decodes_to_exactly_the_page(indexed_client, monkeypatch, path):
    monkeypatch.setattr(compression, "LARGE_PAGE", 1_000)
    for _ in range(2):  # the first view compresses its parts; the second reuses them
        packed = indexed_client.get(path, headers={"Accept-Encoding": "gzip"})
        plain = indexed_client.get(path)
        assert packed.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
        body = stream.decompress(packed.get_data())
        assert stream.eof and not stream.unused_data  # one whole gzip member, checked by its CRC and length
        assert _same_page(body) == _same_page(plain.get_data()) == _same_page(gzip.decompress(packed.get_data()))
        assert len(packed.get_data()) < len(plain.get_data()) / 3
