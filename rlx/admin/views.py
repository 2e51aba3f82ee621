"""The admin's pages: overview, environments, collections, banner, indexes, settings, rollouts and the audit log."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from flask import Blueprint, abort, current_app, render_template, request

from rlx.admin import rollouts
from rlx.admin.store import recent
from rlx.jobs.queues import QUEUES, get_queue
from rlx.store.layout import repo_id_of_key
from rlx.store import app_store

bp = Blueprint("admin", __name__)
MAX_INDEXES_SHOWN = 500


def _settings():
    return current_app.extensions["rlx.settings"].get()


def _settings_path() -> Path:
    return app_store().settings_path


def _page(template: str, **context):
    return render_template(f"admin/{template}", settings=_settings(), **context)


@bp.get("/")
def overview():
    queues = {}
    for name in QUEUES:
        queue = get_queue(name)
        queues[name] = {"queued": queue.count, "started": queue.started_job_registry.count,
                        "failed": queue.failed_job_registry.count}
    return _page("overview.html", queues=queues, audit=recent(_settings_path(), 10), snapshot=_snapshot_status())


@bp.get("/environments")
def environments_page():
    return _page("environments.html")


@bp.get("/collections")
def collections_page():
    return _page("collections.html")


@bp.get("/banner")
def banner_page():
    return _page("banner.html")


@bp.get("/settings")
def settings_page():
    return _page("settings.html")


@bp.get("/indexes")
def indexes_page():
    store = app_store()
    rows = []
    for path in sorted(store.indexes_dir.glob("*.json.gz"))[:MAX_INDEXES_SHOWN]:
        partial = path.name.endswith(".partial.json.gz")
        key = path.name.removesuffix(".partial.json.gz" if partial else ".json.gz")
        rows.append({"env": repo_id_of_key(key), "partial": partial, "size": path.stat().st_size,
                     "modified": path.stat().st_mtime, **_index_head(path)})
    return _page("indexes.html", rows=rows, snapshot=_snapshot_status())


@bp.get("/rollouts")
def rollouts_page():
    try:
        query = rollouts.read_query(request.args)
    except rollouts.RolloutQueryError as exc:
        abort(400, str(exc))
    rows, older = rollouts.list_rollouts(app_store(), query)
    return _page("rollouts.html", rows=rows, older=older, query=query, statuses=rollouts.STATUSES,
                 visibilities=rollouts.VISIBILITIES, sizes=rollouts.PAGE_SIZES)


@bp.get("/audit")
def audit_page():
    return _page("audit.html", audit=recent(_settings_path()))


def _index_head(path: Path) -> dict:
    """Revision, adapter and state of one stored index (a broken file is reported, never raised)."""
    try:
        with gzip.open(path, "rt") as fh:
            data = json.load(fh)
        return {"revision": str(data.get("revision") or "")[:12], "adapter": data.get("adapter"),
                "built_at": data.get("built_at"), "rows": len(data.get("rows") or [])}
    except (OSError, ValueError, AttributeError):
        return {"problem": "unreadable"}


def _snapshot_status() -> dict:
    from rlx.snapshot.app_catalog import reader

    try:
        return reader().status()
    except Exception as exc:  # no snapshot yet: the overview still answers
        return {"problem": str(exc)[:200]}
