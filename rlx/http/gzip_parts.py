"""gzip for a page whose large parts repeat from request to request (the inlined stylesheets, an environment page's
kept task list), compressed once per part instead of once per request.

A deflate stream may be cut into pieces, each compressed on its own and ended with a sync flush (byte-aligned, no
final block): pieces that never look back before their own start can be laid end to end, and a final empty block
closes the stream. So a part registered here is compressed once; each request compresses only the bytes between
the parts it holds and adds the gzip header, the CRC-32 and the length of the whole. Lost: the matches a part could
have made with what comes before it (a few per cent of the page's compressed size).
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict

from flask import g, has_request_context

PART_LEVEL = 6  # parts are compressed once: they can afford the level the home page uses
KEPT = 1024  # parts per process (a few KB each once compressed)
_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # gzip, deflate, no name or time, unknown OS
_END = b"\x03\x00"  # a final, empty block of fixed codes
_parts: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()  # text -> (its UTF-8 bytes, its deflate piece)
_lock = threading.Lock()


def compressed_once(text: str) -> str:
    """`text`, marked as a part of this request's page whose compressed bytes are kept and reused."""
    if not text or not has_request_context():
        return text
    with _lock:
        known = text in _parts
        if known:
            _parts.move_to_end(text)
    if not known:
        raw = text.encode()
        piece = _piece(raw, PART_LEVEL)
        with _lock:
            _parts[text] = (raw, piece)
            while len(_parts) > KEPT:
                _parts.popitem(last=False)
    g.setdefault("rlx_gzip_parts", []).append(text)
    return text


def gzip_with_parts(body: bytes, level: int) -> bytes:
    """`body` as one gzip member, its registered parts taken from their kept pieces, the rest compressed now."""
    with _lock:
        kept = [_parts[t] for t in dict.fromkeys(g.get("rlx_gzip_parts", ())) if t in _parts]
    found = sorted((at, raw, piece) for raw, piece in kept if (at := body.find(raw)) >= 0)
    out, start = [_HEADER], 0
    for at, raw, piece in found:
        if at < start:
            continue  # overlaps a part already laid: compressed with the bytes around it instead
        out += [_piece(body[start:at], level), piece]
        start = at + len(raw)
    out += [_piece(body[start:], level), _END, struct.pack("<II", zlib.crc32(body), len(body) & 0xFFFFFFFF)]
    return b"".join(out)


def _piece(data: bytes, level: int) -> bytes:
    if not data:
        return b""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
