"""Link-preview pictures: /preview/d/<org>/<name>.png, /preview/s/<org>/<name>.png and /preview/site.png.

A picture is drawn once per version of what it shows (rlx/web/seo/page_meta.py's preview_version: the snapshot's
figures for that environment) and kept in the store, which every host shares; the next snapshot with the same
figures reuses it, and a new version replaces the old file. The folder is bounded (RLX_PREVIEWS_MAX_MB): drawing
a picture that takes it past the bound removes the least recently served ones, which are drawn again when asked for.
Only environments the public catalog lists get one: a private, gated, hidden or unknown id is a 404 that says
nothing more.

Pages link the picture with ?v=<version>: that URL never changes meaning, so it is cached for a year; without it
(or with an old one) the current picture is served with a short lifetime.
"""

from __future__ import annotations

import glob
import hashlib
import io
import os
import time
from pathlib import Path
from typing import Callable

from flask import Blueprint, abort, current_app, request, send_file

from rlx.store import app_store, write_atomic
from rlx.store.writable import is_store_full
from rlx.snapshot.app_catalog import reader
from rlx.sources.names import is_org_and_name
from rlx.web.seo.page_meta import PREVIEW_STYLE, kind_label, preview_version, public_env

bp = Blueprint("previews", __name__)

FOREVER = "public, max-age=31536000, immutable"
SHORT = "public, max-age=3600"
VERSION_CHARS = 16
MARK_USED_AFTER_S = 3600  # a picture's last use is kept to the hour: one metadata write an hour, not one per view
PRUNE_TO = 0.9  # of the bound, so that the next few pictures drawn do not each remove one


@bp.get("/preview/<any(d, s):letter>/<org>/<name>.png")
def env_preview(letter: str, org: str, name: str):
    if not is_org_and_name(org, name):
        abort(404, "There is no preview for that name.")
    env_id = ("space:" if letter == "s" else "") + f"{org}/{name}"
    card = public_env(env_id)
    if card is None:
        abort(404, "There is no preview for that environment.")
    version = preview_version(card)
    path = app_store().preview_path(env_id, version)
    png = _kept(path, lambda: _drawing().draw_preview(card, kind_label(card)))
    return _answer(png, version, FOREVER if request.args.get("v") == version else SHORT)


@bp.get("/preview/site.png")
def site_preview():
    """The site's own picture (home, community and every page not about one environment), with the catalog's
    counts; kept in the store like the others."""
    counts = (reader().status().get("counts") or {})
    envs, tasks = int(counts.get("envs") or 0), int(counts.get("tasks") or 0)
    version = hashlib.sha256(f"site\0{PREVIEW_STYLE}\0{envs}\0{tasks}".encode()).hexdigest()[:VERSION_CHARS]
    path = app_store().previews_dir / f"site.{version}.png"
    figures = [(f"{envs:,}", "environments"), (f"{tasks:,}", "tasks")]
    heading = "Reinforcement-learning environments on the Hugging Face Hub"
    subtitle = "Harbor tasks, OpenEnv Spaces and datasets of prompts, answers withheld"
    png = _kept(path, lambda: _drawing().draw_card("HF RL Explorer", heading, subtitle, figures))
    return _answer(png, version, SHORT)


def _drawing():
    """Pillow is imported by the first picture drawn, not at every process's start."""
    from rlx.web.seo import preview_image

    return preview_image


def _kept(path: Path, draw: Callable[[], bytes]) -> bytes:
    """The picture at `path`, drawn and stored (temp then rename) when missing; the other versions of the same
    picture are removed then, and the folder pruned to its bound. A file removed under us (another host moved on,
    or pruned it) is simply drawn again."""
    try:
        png = path.read_bytes()
    except FileNotFoundError:
        pass
    else:
        _mark_used(path)
        return png
    png = draw()
    try:
        write_atomic(path, png)
    except OSError as exc:
        if not is_store_full(exc):
            raise
        return png  # a full store: served, not kept (drawn again next time)
    stem = path.name[: -len(".png")].rsplit(".", 1)[0]
    for old in path.parent.glob(glob.escape(stem) + "." + "?" * VERSION_CHARS + ".png"):
        if old != path:
            old.unlink(missing_ok=True)
    _prune(path.parent, current_app.config["RLX"].previews_max_bytes, keep=path)
    return png


def _mark_used(path: Path) -> None:
    """A picture's modification time is its last use (to the hour), which pruning goes by."""
    try:
        if time.time() - path.stat().st_mtime > MARK_USED_AFTER_S:
            os.utime(path)
    except OSError:
        pass  # pruned under us, or a read-only store: the picture in hand is still served


def _prune(folder: Path, max_bytes: int, keep: Path) -> None:
    """When the pictures in `folder` take more than `max_bytes`, remove the least recently used until they take at
    most PRUNE_TO of it; `keep` (the one just drawn) stays."""
    pictures, total = [], 0
    with os.scandir(folder) as entries:
        for entry in entries:
            if not (entry.name.endswith(".png") and entry.is_file(follow_symlinks=False)):
                continue  # temp files of writes under way end in .tmp
            try:
                stat = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            pictures.append((stat.st_mtime, entry.name, stat.st_size))
            total += stat.st_size
    if total <= max_bytes:
        return
    for _, name, size in sorted(pictures):
        if total <= max_bytes * PRUNE_TO:
            break
        if name != keep.name:
            (folder / name).unlink(missing_ok=True)
            total -= size


def _answer(png: bytes, version: str, cache: str):
    response = send_file(io.BytesIO(png), mimetype="image/png", etag=version, max_age=None, conditional=True)
    response.headers["Cache-Control"] = cache
    return response
