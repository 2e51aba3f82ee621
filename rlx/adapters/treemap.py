"""A squarified treemap's layout (Bruls, Huizing and van Wijk): cells whose areas are proportional to counts and
whose sides stay close to square, as percentages of the box, so a page draws it with plain positioned HTML."""

from __future__ import annotations

WIDTH, HEIGHT = 100.0, 60.0  # the layout's box; cells come back in percent of it


def layout(counts: list[float]) -> list[tuple[float, float, float, float]]:
    """(x, y, w, h) in percent for each count, in the given order (give them largest first)."""
    total = sum(c for c in counts if c > 0)
    if total <= 0:
        return [(0.0, 0.0, 0.0, 0.0) for _ in counts]
    areas = [max(c, 0) * WIDTH * HEIGHT / total for c in counts]
    rects: list[tuple[float, float, float, float]] = []
    box = (0.0, 0.0, WIDTH, HEIGHT)
    row: list[float] = []
    for area in areas:
        side = min(box[2], box[3])
        if row and _worst(row + [area], side) > _worst(row, side):
            box = _place(row, box, rects)
            row = []
        row.append(area)
    if row:
        _place(row, box, rects)
    return [(x / WIDTH * 100, y / HEIGHT * 100, w / WIDTH * 100, h / HEIGHT * 100) for x, y, w, h in rects]


def _worst(row: list[float], side: float) -> float:
    """The worst aspect ratio of `row` laid along a side of length `side`."""
    s = sum(row)
    if s <= 0 or side <= 0:
        return float("inf")
    return max(max(side * side * r / (s * s), (s * s) / (side * side * r)) if r > 0 else float("inf") for r in row)


def _place(row: list[float], box, rects) -> tuple[float, float, float, float]:
    """Lay `row` along the box's shorter side; return the box left over."""
    x, y, w, h = box
    s = sum(row)
    if w >= h:
        width = s / h if h else 0
        top = y
        for area in row:
            height = area / width if width else 0
            rects.append((x, top, width, height))
            top += height
        return x + width, y, w - width, h
    height = s / w if w else 0
    left = x
    for area in row:
        width = area / height if height else 0
        rects.append((left, y, width, height))
        left += width
    return x, y + height, w, h - height
