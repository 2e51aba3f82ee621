"""The search API: /api/search (environments), /api/search/tasks, /api/search/rank and /api/search/status.

Answers are public and cacheable for 30 s; each carries a weak ETag naming the snapshot, the admin settings and
the query, so a repeat is a 304, and Server-Timing says how long the database took.
"""

from __future__ import annotations

import hashlib
import time

from flask import Blueprint, current_app, jsonify, make_response, request

from rlx.auth.own_repos import my_repos
from rlx.auth.visitor import current_visitor
from rlx.snapshot.queries import QueryError, trending_rank
from rlx.snapshot.task_search import search_tasks
from rlx.snapshot.app_catalog import catalog, reader
from rlx.web.environments.hidden import hidden_ids
from rlx.web.catalog.search import TRENDING_MAX, SearchQuery, run_search
from rlx.sources import app_source

bp = Blueprint("api_search", __name__)
_CONDITIONS = ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_UNMODIFIED_SINCE",
               "HTTP_IF_RANGE", "HTTP_RANGE")


def etag_for(*parts) -> str:
    """A weak validator for what this answer was made from: the snapshot, the settings, the request."""
    snapshot_sha256 = reader().sha256()
    settings_file = current_app.extensions["rlx.settings"]
    try:
        stat = settings_file.path.stat()
        settings_seen = f"{stat.st_mtime_ns}:{stat.st_size}:{stat.st_ino}"
    except FileNotFoundError:
        settings_seen = "-"
    digest = hashlib.sha256("|".join(map(str, (snapshot_sha256, settings_seen, *parts))).encode())
    return digest.hexdigest()[:32]


def cached_json(body: dict, etag: str, max_age: int = 30, db_ms: float | None = None):
    response = make_response(jsonify(body))
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = f"public, max-age={max_age}, stale-while-revalidate=120"
    response.headers["X-Robots-Tag"] = "noindex"
    if db_ms is not None:
        response.headers["Server-Timing"] = f"db;dur={db_ms}"
    # A request without conditions has nothing for make_conditional to decide, and it was a twentieth of a
    # search's time (the server writes the Date header itself).
    if not any(name in request.environ for name in _CONDITIONS):
        return response
    return response.make_conditional(request)


def _not_modified(etag: str):
    if request.if_none_match.contains_weak(etag):
        response = make_response("", 304)
        response.set_etag(etag, weak=True)
        response.headers["Cache-Control"] = "public, max-age=30, stale-while-revalidate=120"
        return response
    return None


@bp.get("/api/search")
def search():
    if request.args.get("mine") not in (None, "", "0"):
        return _mine()
    query = SearchQuery.from_args(request.args)
    try:
        trending = max(0, min(int(request.args.get("trending", 0) or 0), TRENDING_MAX))
    except ValueError:
        raise QueryError("trending must be a whole number.") from None
    # Cards say "OpenEnv Space" only while a Space's check is fresh (rlx.live): the validator turns over every
    # ten minutes so a claim cannot outlive its check by much through 304s.
    etag = etag_for("envs", int(time.time() // 600), sorted(request.args.items(multi=True)))
    if (hit := _not_modified(etag)) is not None:
        return hit
    result = run_search(query, trending=trending)
    db_ms = result.pop("db_ms")
    return cached_json(result, etag, db_ms=db_ms)


def _mine():
    """The signed-in visitor's own datasets and Spaces: a private answer, never stored by a shared cache."""
    visitor = current_visitor()
    if visitor is None:
        return jsonify({"ok": False, "status": 401, "error": "Sign in to list your own datasets and Spaces."}), 401
    cards, note = my_repos(visitor)
    if note and request.args.get("mine") == "1" and getattr(app_source(),
                                                             "list_by_author", None):
        return jsonify({"ok": False, "status": 503, "error": note}), 503, {"Retry-After": "30"}
    response = jsonify({"account": visitor.name, "mine": cards, "note": note})
    response.headers["Cache-Control"] = "private, no-store"
    response.vary.add("Cookie")
    return response


@bp.get("/api/search/tasks")
def tasks():
    etag = etag_for("tasks", sorted(request.args.items(multi=True)))
    if (hit := _not_modified(etag)) is not None:
        return hit
    with catalog() as db:
        result = search_tasks(db, q=request.args.get("q", "")[:300], env=request.args.get("env") or None,
                              page=request.args.get("page", 1), size=request.args.get("size", 24),
                              exclude_ids=hidden_ids())
    return cached_json(result, etag, max_age=60)


@bp.get("/api/search/rank")
def rank():
    key = request.args.get("key", "")[:200]
    if not key:
        raise QueryError("rank needs key=<org>/<name>.")
    with catalog() as db:
        found = trending_rank(db, key, exclude_ids=hidden_ids())
    if found is None:
        return jsonify({"ok": False, "status": 404, "error": f"{key} is not in the catalog."}), 404
    return cached_json(found, etag_for("rank", key), max_age=60)


@bp.get("/api/search/status")
def status():
    response = jsonify(reader().status())
    response.headers["Cache-Control"] = "no-store"
    return response
