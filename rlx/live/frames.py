"""An observation's values as a person would look at them: frames as pictures, boards as grids, long values folded
with their size shown. Plain data in, plain data out (the template draws it); nothing here is ever cut silently.

Frames come as numbers in several layouts: nested lists height × width (grey), height × width × channels or
channels × height × width (1, 3 or 4 channels), or a flat list with its shape beside it (Atari's `screen` and
`screen_shape`); or as base64 image bytes without a data: prefix (Atari's `screen_image`). Values 0-255 are
drawn as they are, floats in 0-1 scaled, anything else stretched from its lowest to its highest.
"""

from __future__ import annotations

import base64
import json
import math
import re

from rlx.live.png import png_bytes

MAX_VALUES = 1_200_000  # numbers drawn as one frame (an Atari screen is 100,800; 640 × 480 RGB is 921,600)
MAX_SIDE = 2048
MIN_IMAGE_SIDE = 16  # a smaller 2-D array is a board, drawn as a grid
MAX_GRID = 32  # rows and columns of a grid
MAX_SHOWN = 100_000  # characters of one value shown; past it the page says how many more there are
FOLD_LINES, FOLD_CHARS = 40, 3000  # past either, a value starts folded, its size on the fold
_B64_IMAGE = {"iVBORw0KGgo": "image/png", "/9j/": "image/jpeg", "R0lGOD": "image/gif", "UklGR": "image/webp"}
_B64 = re.compile(r"^[A-Za-z0-9+/=\s]+$")


def image_part(value, shape=None) -> dict | None:
    """{kind: image, value: a PNG data URL, note: what it was} when `value` is a frame, else None."""
    found = _flat_and_shape(value) if shape is None else _flat_with_shape(value, shape)
    if found is None:
        return None
    flat, dims = found
    layout = _layout(dims)
    if layout is None:
        return None
    height, width, channels, note = layout
    pixels = _bytes(flat, dims, height, width, channels)
    url = "data:image/png;base64," + base64.b64encode(png_bytes(width, height, channels, pixels)).decode()
    names = {1: "grey", 2: "grey and alpha", 3: "RGB", 4: "RGBA"}
    return {"kind": "image", "value": url, "width": width, "height": height,
            "note": f"{width} × {height} {names[channels]} frame, drawn from {len(flat):,} numbers"
                    f" ({' × '.join(map(str, dims))}{note})"}


def encoded_image_part(text: str) -> dict | None:
    """Base64 image bytes without a data: prefix, as an image."""
    for magic, mime in _B64_IMAGE.items():
        if text.startswith(magic) and len(text) > 64 and _B64.match(text[:512]):
            return {"kind": "image", "value": f"data:{mime};base64,{text}", "note": f"a {mime[6:].upper()} image "
                    f"sent as {len(text):,} characters of base64"}
    return None


def grid_part(value) -> dict | None:
    """A board (rows of the same length of plain values, at most MAX_GRID × MAX_GRID) as a grid."""
    if not (isinstance(value, list) and 1 < len(value) <= MAX_GRID and all(isinstance(r, list) for r in value)):
        return None
    width = len(value[0])
    if not 1 < width <= MAX_GRID or any(len(r) != width for r in value):
        return None
    if not all(_plain(c) for row in value for c in row):
        return None
    return {"kind": "grid", "value": [[_cell(c) for c in row] for row in value],
            "note": f"{len(value)} × {width} grid"}


def folded_part(kind: str, text: str) -> dict:
    """A text or JSON value to show: folded when long, its size on the fold, and past MAX_SHOWN characters cut
    with the count of the rest said."""
    lines = text.count("\n") + 1
    shown = text[:MAX_SHOWN]
    return {"kind": kind, "value": shown, "folded": lines > FOLD_LINES or len(text) > FOLD_CHARS,
            "size": f"{lines:,} line{'' if lines == 1 else 's'}, {len(text):,} characters",
            "more": len(text) - len(shown)}


def readable_json(value, indent: int = 0, depth: int = 0) -> str:
    """JSON with lists of plain values kept on one line (a list of 128 numbers is one line, not 128)."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if depth > 40:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list) and value and not all(_plain(v) for v in value):
        items = ",\n".join(inner + readable_json(v, indent + 1, depth + 1) for v in value)
        return f"[\n{items}\n{pad}]"
    if isinstance(value, dict) and value:
        items = ",\n".join(f"{inner}{json.dumps(str(k), ensure_ascii=False)}: "
                           f"{readable_json(v, indent + 1, depth + 1)}" for k, v in value.items())
        return f"{{\n{items}\n{pad}}}"
    return json.dumps(value, ensure_ascii=False)


def numbers_only(value, depth: int = 0) -> bool:
    """Whether `value` is a (nested, at most 3 deep) non-empty list of plain numbers: a value no answer can hide
    in by name, so a page need not walk its 100,800 items one by one to withhold answers."""
    if not isinstance(value, list) or not value or depth > 2:
        return False
    if type(value[0]) is list:
        return all(numbers_only(item, depth + 1) for item in value)
    try:
        bytes(value)  # all of them 0-255 ints (a frame's usual values), checked in C
        return True
    except (TypeError, ValueError):
        return all(type(item) in _NUMBER_TYPES for item in value)


_NUMBER_TYPES = (int, float)


# --- arrays ------------------------------------------------------------------------------------------------


def _numbers(values: list) -> bool:
    try:
        bytes(values)  # the common case, all of them 0-255 ints, checked in C
        return True
    except (TypeError, ValueError):
        return all(type(v) in _NUMBER_TYPES and math.isfinite(v) for v in values)


def _plain(v) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _cell(v) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v)


def _flat_and_shape(value):
    """A rectangular nested list of 2 or 3 dimensions of numbers, flattened, with its dimensions."""
    dims, probe = [], value
    while isinstance(probe, list):
        if not probe or len(dims) == 3:
            return None
        dims.append(len(probe))
        probe = probe[0]
    if len(dims) < 2 or math.prod(dims) > MAX_VALUES:
        return None
    rows = value
    for _ in dims[1:-1]:
        if any(not isinstance(r, list) or len(r) != dims[1] for r in rows):
            return None
        rows = [inner for r in rows for inner in r]
    if any(not isinstance(r, list) or len(r) != dims[-1] for r in rows):
        return None
    flat = [v for r in rows for v in r]
    return (flat, dims) if _numbers(flat) else None


def _flat_with_shape(value, shape):
    if not (isinstance(value, list) and isinstance(shape, list) and 2 <= len(shape) <= 3
            and all(isinstance(d, int) and d > 0 for d in shape)):
        return None
    if len(value) != math.prod(shape) or len(value) > MAX_VALUES or not _numbers(value):
        return None
    return value, list(shape)


def _layout(dims):
    """(height, width, channels, note) for the array's dimensions, or None when it is not a frame."""
    if len(dims) == 2:
        height, width, channels, note = dims[0], dims[1], 1, ""
    elif dims[2] in (1, 3, 4):
        height, width, channels, note = dims[0], dims[1], dims[2], ", height × width × channels"
    elif dims[0] in (1, 3):
        height, width, channels, note = dims[1], dims[2], dims[0], ", channels first"
    else:  # a stack of frames (4 × 84 × 84 in Atari's usual preprocessing): its first one
        height, width, channels, note = dims[1], dims[2], 1, f", the first of {dims[0]} frames"
    if min(height, width) < MIN_IMAGE_SIDE or max(height, width) > MAX_SIDE:
        return None
    return height, width, channels, note


def _bytes(flat, dims, height, width, channels) -> bytes:
    try:
        scaled = bytes(flat)  # 0-255 ints: drawn as they are
    except (TypeError, ValueError):
        scaled = _scaled(flat)
    if len(dims) == 3 and dims[2] not in (1, 3, 4):  # channels first (or a stack): reorder to rows of pixels
        plane = height * width
        if channels == 1:
            return bytes(scaled[:plane])
        return bytes(scaled[c * plane + i] for i in range(plane) for c in range(channels))
    return bytes(scaled)


def _scaled(flat) -> list[int]:
    low, high = min(flat), max(flat)
    if 0 <= low and high <= 1:
        return [round(v * 255) for v in flat]
    span = (high - low) or 1
    return [round((v - low) * 255 / span) for v in flat]
