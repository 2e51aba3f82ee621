"""What the Hub says now of a run's dataset, for the visitor asking to see the run (rlx/runs/access.py decides).

A run is public only while its dataset is: a dataset made private since (or a run recorded public before runs
inherited their dataset's privacy) reads as private. A run on a private or gated dataset is shown to its owner
only while their token still opens the dataset. Both answers come from the record lookup pages already use
(cached FRESH_S per repository and token, rlx/sources/record_cache.py); a gated dataset's grant is seen only on its files,
so one small file is read with the token, and that answer is kept ACCESS_FRESH_S in this process (an answer about
one token, not shared state).
"""

from __future__ import annotations

import hashlib
import threading
import time

from flask import current_app

from rlx.auth.visitor import visitor_token
from rlx.runs.access import CLOSED, OPEN, READABLE, UNKNOWN, ACCESS_FRESH_S
from rlx.sources.errors import AccessDenied, RepoNotFound, SourceError, Unavailable
from rlx.sources.record_cache import app_record_cache
from rlx.sources import app_source

MAX_KEPT = 4096
_lock = threading.Lock()


def dataset_access(env_id: str) -> str:
    """OPEN (public on the Hub), READABLE (private or gated, and this visitor's token opens it), CLOSED, or
    UNKNOWN (the Hub did not answer: the run's own record decides)."""
    if env_id.startswith("space:"):
        return OPEN
    try:
        public, outage = app_record_cache().lookup(env_id, None, can_fall_back=True)
        if outage is None and not (public.private or public.gated):
            return OPEN
        if outage is not None:
            return UNKNOWN
    except RepoNotFound:  # private (or gone): the Hub answers both alike to a visitor without a token
        pass
    except SourceError:
        return UNKNOWN
    token = visitor_token()
    if token is None:
        return CLOSED
    return READABLE if _opens(env_id, token) else CLOSED


def _opens(env_id: str, token: str) -> bool:
    key = (env_id, hashlib.sha256(token.encode()).hexdigest())
    now = time.monotonic()
    _grants = current_app.extensions.setdefault("rlx.dataset_grants", {})  # per app: each has its own source
    with _lock:
        kept = _grants.get(key)
    if kept and now - kept[0] < ACCESS_FRESH_S:
        return kept[1]
    source = app_source()
    try:
        record = source.repo_info("dataset", env_id, token=token)
        if record.gated:  # the grant shows on files only
            try:
                source.read_file("dataset", env_id, "README.md", token=token, max_bytes=256 * 1024)
            except (AccessDenied, RepoNotFound):
                raise
            except SourceError as exc:  # no README, or a large one: the file answered, so the grant holds
                if isinstance(exc, Unavailable):
                    raise
        opens = True
    except (AccessDenied, RepoNotFound):
        opens = False
    except Unavailable:
        return bool(kept and kept[1])  # the Hub is down: its last word for this token holds
    with _lock:
        _grants[key] = (now, opens)
        while len(_grants) > MAX_KEPT:
            _grants.pop(next(iter(_grants)))
    return opens
