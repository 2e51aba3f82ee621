"""An admin's "stop this run", carried out by the worker that runs it.

The admin app writes the run's id into the settings file's `stop` map (rlx/admin/edits.py), like every other admin
action; it has no other channel to the workers. The rollout job looks at the file between its checks for the
owner's own Stop (every half second: a stat, and a read only when the file changed) and, finding its run there,
cancels the trial, which tears the sandbox down, and ends the run "stopped". A run still queued is stopped the
same way when a worker picks it up. Entries older than STOP_KEEP_S are dropped on the next save, so the map
stays small.
"""

from __future__ import annotations

import calendar
import time

from flask import current_app

from rlx.store.settings import MAX_STOPS

STOP_KEEP_S = 2 * 24 * 3600  # longer than any rollout's time limit
OUTCOME = "Stopped by an admin."
_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def add_stop(stops, run_id: str, now: float | None = None) -> dict:
    """The `stop` map with `run_id` asked now, entries past STOP_KEEP_S dropped, at most MAX_STOPS kept."""
    now = time.time() if now is None else now
    kept = {}
    for other, at in (stops if isinstance(stops, dict) else {}).items():
        try:
            fresh = now - calendar.timegm(time.strptime(at, _FORMAT)) < STOP_KEEP_S
        except (TypeError, ValueError):
            fresh = False
        if fresh and other != run_id:
            kept[other] = at
    kept[run_id] = time.strftime(_FORMAT, time.gmtime(now))
    return dict(list(kept.items())[-MAX_STOPS:])


def watcher(run_id: str):
    """A check to call as often as wanted: whether an admin has asked this run to stop. Made inside the app;
    callable from the job's event loop."""
    settings_file = current_app.extensions["rlx.settings"]
    return lambda: run_id in settings_file.get().stop
