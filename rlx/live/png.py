"""Pixels as a PNG, with the standard library alone: how the playground draws a frame an environment sends as
numbers (an Atari screen is 100,800 of them), so a visitor sees the picture the agent sees.

Only what an observation needs: 8-bit grey, grey with alpha, RGB or RGBA, no filtering, one zlib stream.
"""

from __future__ import annotations

import struct
import zlib

_COLOUR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type (grey, grey+alpha, RGB, RGBA)


def png_bytes(width: int, height: int, channels: int, pixels: bytes) -> bytes:
    """A PNG of `pixels`: height rows of width × channels bytes, row after row."""
    if channels not in _COLOUR_TYPE or len(pixels) != width * height * channels or not width or not height:
        raise ValueError("the pixels do not make an image of that size")
    stride = width * channels
    raw = b"".join(b"\x00" + pixels[row * stride:(row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPE[channels], 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + \
        _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
