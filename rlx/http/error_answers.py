"""One error path, two shapes: JSON for /api/ URLs, a page in the layout for everything else."""

from __future__ import annotations

import logging

import redis
from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from rlx.snapshot.queries import QueryError
from rlx.snapshot.generation import SnapshotUnavailable
from rlx.sources.errors import SourceError, Unavailable
from rlx.store.writable import is_store_full

log = logging.getLogger(__name__)
STORE_RETRY_AFTER_S = 60  # a full disk waits for an operator (or a prune)
QUEUE_RETRY_AFTER_S = 15  # Redis down: the demo's supervisor (or an operator) restarts it within seconds

TITLES = {
    400: "That request could not be read",
    403: "You may not see this",
    404: "Nothing here",
    405: "Not allowed",
    413: "Too large",
    429: "Too many requests",
    500: "Something broke on our side",
    503: "Try again in a moment",
}


def error_response(status: int, message: str, retry_after: int | None = None):
    if request.path.startswith("/api/"):
        response = jsonify({"ok": False, "status": status, "error": message})
        response.status_code = status
    else:
        body = render_template("pages/error.html", status=status, title=TITLES.get(status, "Error"),
                               message=message, noindex=True)
        response = (body, status)
        from flask import make_response

        response = make_response(response)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        retry_after = exc.retry_after if getattr(exc, "retry_after", None) else None
        return error_response(exc.code or 500, exc.description or TITLES.get(exc.code, "Error"),
                              retry_after=retry_after)

    @app.errorhandler(SourceError)
    def _source(exc: SourceError):
        retry_after = exc.retry_after if isinstance(exc, Unavailable) else None
        return error_response(exc.status, _sentence(str(exc)), retry_after=retry_after)

    @app.errorhandler(QueryError)
    def _query(exc: QueryError):
        return error_response(400, _sentence(str(exc)))

    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    def _queue_down(exc: Exception):
        log.warning("redis unreachable on %s: %s", request.path, exc)
        return error_response(503, "The job queue is not answering, so nothing new can be started right now; "
                                   "try again in a moment.", retry_after=QUEUE_RETRY_AFTER_S)

    @app.errorhandler(SnapshotUnavailable)
    def _no_snapshot(exc: SnapshotUnavailable):
        return error_response(503, "The catalog is not ready yet; it is being built.", retry_after=10)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        if isinstance(exc, HTTPException):
            return _http(exc)
        if is_store_full(exc):  # the server's state, not a bug: nothing can be saved until space is made
            log.warning("the store is not writable on %s: %s", request.path, exc)
            return error_response(503, "The server's storage is full, so nothing new can be saved right now; "
                                       "try again later.", retry_after=STORE_RETRY_AFTER_S)
        log.exception("unhandled error on %s", request.path)
        return error_response(500, InternalServerError.description)


def _sentence(text: str) -> str:
    """Source and query errors are worded to sit inside other sentences ("there is no dataset ..."); alone on a
    page or in an API answer they start with a capital."""
    return text[:1].upper() + text[1:]
