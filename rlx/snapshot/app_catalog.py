"""The catalog snapshot and the admin settings, as a request sees them.

Each process keeps one SnapshotReader. Under `rlx serve` the gunicorn worker opens the snapshot when it boots,
before it takes a request, and looks at the pointer again every RLX_SNAPSHOT_CHECK_S (60 s by default) on its own
(rlx/web/gevent_worker.py): a request only borrows a connection to a copy that is already checked. Anywhere else
(the test client, a script) the reader looks at the pointer on its first use and again whenever a request arrives
that long after the last look (a stat and a small read; a copy only when the pointer moved). With no snapshot
published at all, the reader builds the same database from the source in process.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable

from flask import Flask, current_app

from rlx.snapshot.build import in_process_builder
from rlx.snapshot.reader import SnapshotReader
from rlx.store.settings import AdminSettings
from rlx.store.settings_file import SettingsFile

_lock = threading.Lock()


def init_app(app: Flask) -> None:
    app.extensions["rlx.snapshot"] = None
    app.extensions["rlx.snapshot.checked"] = 0.0
    app.extensions["rlx.snapshot.checked_in_background"] = False
    app.extensions["rlx.settings"] = SettingsFile(app.extensions["rlx.store"].settings_path)
    app.extensions.setdefault("rlx.readiness", {})["snapshot"] = _readiness


def open_snapshot(app: Flask, offload: Callable[..., object] | None = None) -> SnapshotReader:
    """Load the snapshot now, before any request, and leave later checks to the caller (`snapshot.check()` every
    `app.config["RLX"].snapshot_check_s`): requests stop looking at the pointer themselves."""
    snapshot = _reader_of(app, offload)
    app.extensions["rlx.snapshot.checked_in_background"] = True
    app.extensions["rlx.snapshot.checked"] = time.monotonic()
    snapshot.check()
    return snapshot


def reader() -> SnapshotReader:
    app = current_app
    snapshot = _reader_of(app)
    if app.extensions["rlx.snapshot.checked_in_background"]:
        return snapshot
    now = time.monotonic()
    if now - app.extensions["rlx.snapshot.checked"] >= app.config["RLX"].snapshot_check_s:
        app.extensions["rlx.snapshot.checked"] = now
        snapshot.check()
    return snapshot


def _reader_of(app: Flask, offload: Callable[..., object] | None = None) -> SnapshotReader:
    snapshot = app.extensions["rlx.snapshot"]
    if snapshot is None:
        with _lock:
            snapshot = app.extensions["rlx.snapshot"]
            if snapshot is None:
                store = app.extensions["rlx.store"]
                snapshot = SnapshotReader(store, app.config["RLX"].cache_dir, offload=offload,
                                          fallback=in_process_builder(app.extensions["rlx.source"], store))
                app.extensions["rlx.snapshot"] = snapshot
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
