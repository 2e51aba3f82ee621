"""A gunicorn worker's snapshot: opened while the worker boots, then checked again in the background.

Opening a snapshot copies the database out of the store, hashes it and runs SQLite's quick_check: seconds at 10x
the catalog. Done at a worker's first request, that request (and every request queued behind it in the worker)
waited for all of it. Here it is done before the worker takes its first request, and later checks run in a
greenlet of their own, their file work in gevent's native thread pool, so no request ever waits on a copy. What
a request can see is unchanged: only a copy that was checked whole is swapped in, and a new pointer is followed
within RLX_SNAPSHOT_CHECK_S.
"""

from __future__ import annotations

import logging

import gevent
from flask import Flask

from rlx.snapshot import app_catalog

log = logging.getLogger("rlx.snapshot")

_HEARTBEAT_S = 1.0  # how often gunicorn hears from a worker still opening its snapshot (its --timeout is 120 s)


def open_at_boot(app: Flask, notify) -> gevent.Greenlet | None:
    """Open `app`'s snapshot now (calling `notify`, gunicorn's heartbeat, meanwhile) and start the greenlet that
    checks the pointer from then on; None for an app without a catalog (the admin app)."""
    if "rlx.snapshot" not in getattr(app, "extensions", {}):
        return None
    pool = gevent.get_hub().threadpool

    def offload(fn, *args):
        return pool.apply(fn, args)

    heartbeat = gevent.spawn(_beat, notify)
    try:
        snapshot = app_catalog.open_snapshot(app, offload)
    finally:
        heartbeat.kill()
    return gevent.spawn(_keep_checking, snapshot, app.config["RLX"].snapshot_check_s)


def _beat(notify) -> None:
    while True:
        notify()
        gevent.sleep(_HEARTBEAT_S)


def _keep_checking(snapshot, every_s: float) -> None:
    while True:
        gevent.sleep(every_s)
        try:
            snapshot.check()
        except Exception:  # a store that fails in a new way: the snapshot in use stays, the next look tries again
            log.exception("snapshot.check_failed")
