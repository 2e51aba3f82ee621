"""The link-preview pictures kept in the store stay within RLX_PREVIEWS_MAX_MB: drawing one that takes the folder
past it removes the least recently served, and a removed picture is drawn again, the same, when asked for."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from rlx import create_app

PUBLIC = "https://explorer.example.org"
NAMES = ("terminal-basics", "python-bugfix", "science-puzzles", "shell-katas", "trivia-table", "agent-traces",
         "math-word-problems", "mimo-sample")  # bundled examples the public catalog lists
PATHS = [f"/preview/d/rlx-examples/{name}.png" for name in NAMES]


def kept(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in folder.glob("*.png")}


def test_the_previews_folder_keeps_to_its_bound_dropping_the_least_recently_served_first(make_config, redis_client):
    config = make_config(RLX_PUBLIC_URL=PUBLIC)
    folder = config.storage_dir / "previews"
    roomy = create_app(config).test_client()  # the default bound: every picture of the examples fits
    drawn = {path: roomy.get(path) for path in PATHS}
    assert all(r.status_code == 200 and r.mimetype == "image/png" for r in drawn.values())
    files = kept(folder)
    assert len(files) == len(PATHS)
    # Served an hour or more ago, in the order of PATHS: the first is the least recently served.
    long_ago = time.time() - 3 * 3600
    for n, name in enumerate(NAMES):
        [picture] = folder.glob(f"d-rlx-examples+{name}.*.png")
        os.utime(picture, (long_ago + n * 60, long_ago + n * 60))
    first, second = PATHS[0], PATHS[1]
    bound = sum(files.values()) // 2

    tight = create_app(dataclasses.replace(config, previews_max_bytes=bound)).test_client()
    assert tight.get(first).data == drawn[first].data  # served again now: the most recently used
    site = tight.get("/preview/site.png")  # not drawn yet: drawing it takes the folder past the bound
    assert site.status_code == 200 and site.mimetype == "image/png"
    after = kept(folder)
    assert sum(after.values()) <= bound
    assert any(name.startswith("site.") for name in after)  # the one just drawn stays
    assert any(name.startswith(f"d-rlx-examples+{NAMES[0]}.") for name in after)
    assert not any(name.startswith(f"d-rlx-examples+{NAMES[1]}.") for name in after)
    assert len(after) < len(PATHS)

    again = tight.get(second)  # pruned: drawn again, the same picture, and the folder still within its bound
    assert again.status_code == 200 and again.data == drawn[second].data
    assert sum(kept(folder).values()) <= bound
