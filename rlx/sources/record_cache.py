"""A repository's record (revision, counters, card) for a page view, asked of the source at most every 30 s: the
one loader of records for dataset pages and Space pages alike.

A page whose index is already on disk never waits long on the source: it waits at most WAIT_S for the record,
then answers from disk while the call carries on in the background (its answer serves the next request). While
the source is known to be down, such pages do not wait at all, and one background call per repository every
RETRY_S finds out when it is back. A page with nothing on disk waits for the source as before (and gets its error).

One cache per app and repository type (each app has its own source), in process memory. Records are kept per
who may see them: the public's (no token), or one visitor's under a digest of their token (`viewer_key`), never the
token itself.
"""

from __future__ import annotations

import hashlib
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from rlx.sources.base import RepoRecord
from rlx.sources.errors import Unavailable

FRESH_S = 30.0  # a record younger than this is used without asking the source
WAIT_S = 2.0  # the longest a page with an index on disk waits for the source
RETRY_S = 5.0  # while the source is down, one background call per repository this often
MAX_ENTRIES = 4096
CALLS_IN_FLIGHT = 8


def viewer_key(token: str | None) -> str | None:
    """Whose view a record is: None for the public, else a digest of the visitor's token."""
    return hashlib.sha256(token.encode()).hexdigest() if token else None


def app_record_cache(repo_type: str = "dataset") -> "RecordCache":
    """This app's cache of `repo_type` records ("dataset" or "space")."""
    from flask import current_app

    from rlx.sources import app_source

    caches = current_app.extensions.setdefault("rlx.records", {})
    cache = caches.get(repo_type)
    if cache is None:
        cache = caches.setdefault(repo_type, RecordCache(app_source(), repo_type))
    return cache


class RecordCache:
    def __init__(self, source, repo_type: str = "dataset", clock=time.monotonic):
        self.source = source
        self.repo_type = repo_type
        self.clock = clock
        self._lock = threading.Lock()
        self._known: dict[tuple, tuple[float, RepoRecord]] = {}  # key -> (when fetched, record); kept when old
        self._down: dict[tuple, tuple[float, Unavailable]] = {}  # key -> (when the last call failed, why)
        self._calls: dict[tuple, Future] = {}
        self._pool = ThreadPoolExecutor(CALLS_IN_FLIGHT, thread_name_prefix="rlx-record")

    def lookup(self, repo_id: str, token: str | None, can_fall_back: bool | None = None
               ) -> tuple[RepoRecord | None, Unavailable | None]:
        """(record, None) when the source answered (now or within FRESH_S); (last known record or None, why)
        when it did not and `can_fall_back` (None: when a record of it is known here). Without a fallback the
        source's error is raised, as is any error that is not an outage (a repository gone or made private must
        not be served from disk)."""
        key = (repo_id, viewer_key(token))
        now = self.clock()
        with self._lock:
            known = self._known.get(key)
            if known and now - known[0] < FRESH_S:
                return known[1], None
            if can_fall_back is None:
                can_fall_back = known is not None
            down = self._down.get(key)
            call = self._calls.get(key)
            if call is None and not (can_fall_back and down and now - down[0] < RETRY_S):
                call = self._calls[key] = self._pool.submit(self._fetch, key, repo_id, token)
        last = known[1] if known else None
        if can_fall_back and down and (call is None or not call.done()):
            return last, down[1]  # known to be down: answer from disk at once
        try:
            return call.result(timeout=WAIT_S if can_fall_back else None), None
        except FutureTimeout:
            slow = Unavailable(f"The Hub did not answer within {WAIT_S:g} s about {repo_id}.")
            with self._lock:  # the next pages do not wait on this call either
                self._down.setdefault(key, (self.clock(), slow))
            return last, slow
        except Unavailable as exc:
            if can_fall_back:
                return last, exc
            raise

    def _fetch(self, key: tuple, repo_id: str, token: str | None) -> RepoRecord:
        """The source call, run in the pool: its outcome is remembered whether or not a page still waits."""
        try:
            record = self.source.repo_info(self.repo_type, repo_id, token=token)
        except Unavailable as exc:
            with self._lock:
                self._down[key] = (self.clock(), exc)
                self._calls.pop(key, None)
            raise
        except BaseException:
            with self._lock:
                self._calls.pop(key, None)
            raise
        with self._lock:
            self._known.pop(key, None)
            self._known[key] = (self.clock(), record)
            self._down.pop(key, None)
            self._calls.pop(key, None)
            while len(self._known) > MAX_ENTRIES:
                self._known.pop(next(iter(self._known)))
            while len(self._down) > MAX_ENTRIES:
                self._down.pop(next(iter(self._down)))
        return record
