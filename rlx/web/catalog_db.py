"""The catalog snapshot and the admin settings, as a request sees them.

Each process keeps one SnapshotReader: it looks at the pointer on its first use and again whenever a request
arrives RLX_SNAPSHOT_CHECK_S (60 s by default) or more after the last look (a stat and a small read; a copy only when the pointer moved). With
no snapshot published at all, the reader builds the same database from the source in process.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from flask import Flask, current_app

from rlx.snapshot.build import in_process_builder
from rlx.snapshot.reader import SnapshotReader
from rlx.store.settings import AdminSettings, SettingsFile

_lock = threading.Lock()


def init_app(app: Flask) -> None:
    app.extensions["rlx.snapshot"] = None
    app.extensions["rlx.snapshot.checked"] = 0.0
    app.extensions["rlx.settings"] = SettingsFile(app.extensions["rlx.store"].settings_path)
    app.extensions.setdefault("rlx.readiness", {})["snapshot"] = _readiness


def reader() -> SnapshotReader:
    app = current_app
    snapshot = app.extensions["rlx.snapshot"]
    if snapshot is None:
        with _lock:
            snapshot = app.extensions["rlx.snapshot"]
            if snapshot is None:
                store = app.extensions["rlx.store"]
                snapshot = SnapshotReader(store, app.config["RLX"].cache_dir,
                                          fallback=in_process_builder(app.extensions["rlx.source"], store))
                app.extensions["rlx.snapshot"] = snapshot
    now = time.monotonic()
    if now - app.extensions["rlx.snapshot.checked"] >= app.config["RLX"].snapshot_check_s:
        app.extensions["rlx.snapshot.checked"] = now
        snapshot.check()
    return snapshot


@contextmanager
def catalog():
    """A read-only connection to the snapshot in use; queries in flight keep theirs through a swap."""
    with reader().connection() as db:
        yield db


def settings() -> AdminSettings:
    return current_app.extensions["rlx.settings"].get()


def _readiness() -> dict:
    status = reader().status()
    return {"ok": bool(status.get("snapshot")), **status}
