"""The per-task result grid of a compare, as SVG geometry worked out on the server: one row per task, a column
per set (A, B), each cell the share of that set's counted rollouts of the task that solved it; flips first.

Colour helps, but the cell's text (✓, ✗, or the share) and its tooltip carry the meaning too."""

from __future__ import annotations

from rlx.runs.community import reward_colour
from rlx.runs.paired import BOTH, NEITHER, ONLY_A, ONLY_B

ORDER = {ONLY_A: 0, ONLY_B: 1, BOTH: 2, NEITHER: 3}
MAX_ROWS = 200
CELL_W, CELL_H = 64, 16
CHAR_W = 6.3
AXIS = 28  # room for the axis titles


def grid(view: dict, label_a: str, label_b: str) -> dict:
    tasks = sorted(view["tasks"], key=lambda t: (ORDER[t["category"]], t["task"]))[:MAX_ROWS]
    left = AXIS + round(CHAR_W * max((min(len(t["task"]), 40) for t in tasks), default=4)) + 8
    top = 44
    rows = []
    for i, t in enumerate(tasks):
        y = top + CELL_H * i
        cells = [_cell(t["task"], name, t[side], left + CELL_W * j) for j, (side, name) in
                 enumerate((("a", "A"), ("b", "B")))]
        rows.append({"task": t["task"][:40], "y": y, "text_y": y + CELL_H - 4, "cells": cells,
                     "flip": t["category"] in (ONLY_A, ONLY_B), "category": t["category"]})
    height = top + CELL_H * len(rows) + 10
    return {"rows": rows, "left": left, "top": top, "width": left + 2 * CELL_W + 90, "height": height,
            "cell_w": CELL_W, "cell_h": CELL_H, "shown": len(rows), "total": len(view["tasks"]),
            "columns": [{"x": left + CELL_W * j + CELL_W // 2, "name": n, "label": lab[:28]}
                        for j, (n, lab) in enumerate((("A", label_a), ("B", label_b)))],
            "axis_y": {"x": 12, "y": top + CELL_H * len(rows) / 2}}


def _cell(task: str, name: str, cell: dict, x: int) -> dict:
    counted = cell["solved"] + cell["failed"]
    share = cell["solved"] / counted
    text = "✓" if share == 1 else ("✗" if share == 0 else f"{share:.2f}")
    runs = f"{cell['solved']} of {counted} counted rollout{'' if counted == 1 else 's'} solved"
    return {"x": x, "text_x": x + CELL_W // 2, "fill": reward_colour(share), "text": text,
            "title": f"{task} · {name}: {runs}" + (f"; {cell['left_out']} left out" if cell["left_out"] else "")}
