"""The environment page's regions that every visitor is shown alike (the task list with its facets, pager and batch
form; the overview), drawn once per index version and query, and then reused.

Drawing them was most of the page's time (some 300 links and rows of a thousand-task dataset); a repeat view of the
same index and query now only looks them up. What a region shows changes with its index (a new revision or build
gives another key), its query and the host's settings (rollouts switched off, the agents that can run here, the
judge pool: all in the key). Two rules keep visitors apart:

- a private or gated dataset's regions (read with a visitor's token, maybe from their own shelf) are drawn for each
  request and never kept;
- a region is drawn from the values its view passes alone, without the request's template context (no `visitor`,
  no sign-in state), so nothing of one visitor can be kept and shown to another.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Hashable

from flask import current_app, request
from markupsafe import Markup

from rlx.http.gzip_parts import compressed_once
from rlx.runs.access import dataset_is_private
from rlx.store import app_store

KEPT = 512  # regions per process: each is a few tens of KB of HTML (a few MB at most)
_kept: OrderedDict[Hashable, tuple[object, Markup]] = OrderedDict()
_lock = threading.Lock()


def shared_key(state, *parts: Hashable) -> tuple | None:
    """The key of a region of `state`'s page that is the same for every visitor, or None when it must be drawn
    for this request alone (an index still being built or shown from disk, a private or gated dataset)."""
    index = state.index
    if (not state.ready or state.stale or dataset_is_private(state.env.record)
            or state.env.store is not app_store()):
        return None
    return (state.adapter.key, state.adapter.index_version, index.env_id, index.revision, index.built_at,
            len(index.rows), request.script_root, *parts)


def region(key: tuple | None, index, template: str, context: Callable[[], dict]) -> Markup:
    """`template` drawn with `context()`, kept under `key` for as long as the stored index is `index` itself (the
    index loader makes a new object whenever the file changes, so even a build within the same second as the
    last one is drawn anew). Never kept when the key is None."""
    if key is not None:
        with _lock:
            hit = _kept.get(key)
            if hit is not None and hit[0] is index:
                _kept.move_to_end(key)
                return compressed_once(hit[1])
    html = Markup(current_app.jinja_env.get_template(template).render(**context()))
    if key is not None:
        with _lock:
            _kept[key] = (index, html)
            _kept.move_to_end(key)
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
        return compressed_once(html)  # the page's gzip reuses its compressed bytes too (rlx/http/gzip_parts.py)
    return html
