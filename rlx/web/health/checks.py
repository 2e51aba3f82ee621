"""/healthz (the process answers) and /readyz (every part it depends on answers), as JSON.

The source is reported but does not make the app unready: while the Hub is down, pages are served from the
indexes on disk, so a load balancer following /readyz must keep sending visitors here.

/readyz is public (load balancers call it), so it names parts and states, never the server's folders or
addresses: every absolute path in it is replaced by a placeholder.
"""

from __future__ import annotations

import time

from flask import Blueprint, current_app, jsonify
from rq import Worker

from rlx.queue import get_redis
from rlx.queue.liveness import Liveness, worker_dead
from rlx.redact import without_paths as _without_paths
from rlx.store.writable import check_writable
from rlx.store import app_store
from rlx.sources import app_source

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    return jsonify({"ok": True})


@bp.get("/readyz")
def readyz():
    checks = {"redis": _check_redis(), "workers": _check_workers(), "store": _check_store()}
    for name, extra in current_app.extensions.get("rlx.readiness", {}).items():
        checks[name] = extra()
    ok = all(check["ok"] for check in checks.values())
    checks["source"] = _check_source()
    degraded = [] if checks["source"]["ok"] else ["source"]
    response = jsonify({"ok": ok, "checks": _without_paths(checks), "degraded": degraded})
    response.status_code = 200 if ok else 503
    if not ok:
        response.headers["Retry-After"] = "10"
    response.headers["Cache-Control"] = "no-store"
    return response


def _timed(fn):
    started = time.perf_counter()
    try:
        result = fn() or {}
        result.setdefault("ok", True)
    except Exception as exc:  # a readiness probe reports every failure, it never raises
        result = {"ok": False, "error": str(exc) or type(exc).__name__}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def _check_redis():
    return _timed(lambda: {"ok": bool(get_redis().ping())})


def _check_workers():
    def probe():
        liveness = Liveness.of(current_app.config["RLX"])
        # A dead worker's record lingers until it lapses; a late one (busy, its machine overloaded) still counts.
        workers = [w for w in Worker.all(connection=get_redis()) if not worker_dead(w, liveness)]
        queues = sorted({q for w in workers for q in w.queue_names()})
        return {"ok": bool(workers), "count": len(workers), "queues": queues,
                **({} if workers else {"error": "no RQ worker is running: start one with `rlx worker`."})}

    return _timed(probe)


def _check_store():
    def probe():
        check_writable(app_store().root)  # raises StoreUnwritable with a sentence

    return _timed(probe)


def _check_source():
    source = app_source()

    def probe():
        source.check()
        return {"kind": source.kind}

    return _timed(probe)
