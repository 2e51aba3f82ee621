"""The admin's changes: environments (pin, hide, feature, reindex), collections, the banner, rollout settings.

Each POST checks its fields (a 400 with a sentence changes nothing), writes settings.json atomically, adds one audit
line naming who did it, and the explorer picks the change up from the file's new modification time."""

from __future__ import annotations

import re

from flask import Blueprint, abort, redirect, request, url_for

from rlx.admin.rollouts import TakedownError, set_withdrawn
from rlx.admin.store import record, update_settings
from rlx.auth.visitor import current_visitor
from rlx.runs.admin_stop import add_stop
from rlx.runs.record import load as load_run, valid_run_id
from rlx.sources.names import ENV_ID
from rlx.store.settings import COLLECTION_KEY, DEFAULT_JUDGES, JUDGE_ID, MAX_JUDGES, MAX_PER_HOUR
from rlx.http.origin import same_origin_only
from rlx.http.redirects import own_path
from rlx.store import app_store
from rlx.sources import app_source

bp = Blueprint("admin_edits", __name__)

ENV_LISTS = {"pin": ("pinned", True), "unpin": ("pinned", False), "hide": ("hidden", True),
             "unhide": ("hidden", False), "feature": ("featured", True), "unfeature": ("featured", False)}
MAX_LIST = 500
_BANNER_ID = re.compile(r"^[A-Za-z0-9._-]{1,40}\Z")


def _settings_path():
    return app_store().settings_path


def _changed(action: str, to: str, **detail):
    record(_settings_path(), current_visitor().name, action, **detail)
    return redirect(url_for(to), code=303)


def _env_id(value: str | None) -> str:
    env_id = (value or "").strip()
    if not ENV_ID.match(env_id):
        abort(400, "An environment id looks like org/name (a dataset) or space:org/name (a Space).")
    return env_id


@bp.post("/environments")
@same_origin_only
def environments():
    action = request.form.get("action", "")
    env_id = _env_id(request.form.get("env"))
    if action == "reindex":
        return _reindex(env_id)
    if action not in ENV_LISTS:
        abort(400, f"Unknown action {action[:40]!r}: use pin, unpin, hide, unhide, feature, unfeature or reindex.")
    key, present = ENV_LISTS[action]

    def change(data: dict) -> None:
        items = [i for i in data.get(key) or [] if isinstance(i, str) and i != env_id]
        if present:
            items.append(env_id)
        data[key] = items[-MAX_LIST:]

    update_settings(_settings_path(), change)
    return _changed(action, "admin.environments_page", env=env_id)


def _reindex(env_id: str):
    from rlx.jobs.index import ensure_index_job

    if env_id.startswith("space:"):
        abort(400, "Spaces are not indexed; only datasets can be reindexed.")
    record_ = app_source().repo_info("dataset", env_id)  # 404/503 through the handlers
    ensure_index_job(env_id, record_.sha, retry=True)
    return _changed("reindex", "admin.environments_page", env=env_id, revision=record_.sha)


@bp.post("/collections")
@same_origin_only
def collections():
    key = request.form.get("key", "").strip()
    if not COLLECTION_KEY.match(key):
        abort(400, "A collection key is lowercase letters, digits and dashes (at most 48).")
    if request.form.get("action") == "delete":
        update_settings(_settings_path(), lambda data: (data.get("collections") or {}).pop(key, None))
        return _changed("collection.delete", "admin.collections_page", key=key)
    title = request.form.get("title", "").strip()[:80] or key
    items = [line.strip() for line in request.form.get("items", "").splitlines() if line.strip()]
    if len(items) > MAX_LIST or any(not ENV_ID.match(i) for i in items):
        abort(400, "Collection items are environment ids, one per line (org/name or space:org/name), at most 500.")

    def change(data: dict) -> None:
        found = data.get("collections") if isinstance(data.get("collections"), dict) else {}
        found[key] = {"title": title, "items": items}
        data["collections"] = found

    update_settings(_settings_path(), change)
    return _changed("collection.save", "admin.collections_page", key=key, items=len(items))


@bp.post("/banner")
@same_origin_only
def banner():
    if request.form.get("action") == "clear":
        update_settings(_settings_path(), lambda data: data.pop("banner", None))
        return _changed("banner.clear", "admin.banner_page")
    text = request.form.get("text", "").strip()
    href = request.form.get("href", "").strip()
    banner_id = request.form.get("id", "").strip() or "banner"
    if not text or len(text) > 200:
        abort(400, "The banner needs a text of at most 200 characters.")
    if href and not re.match(r"^https?://[^\s/]+", href):
        abort(400, "The banner's link must be an http(s) address.")
    if not _BANNER_ID.match(banner_id):
        abort(400, "The banner id is letters, digits, dots, dashes or underscores (at most 40); a new id shows a "
                   "closed banner again.")
    update_settings(_settings_path(), lambda data: data.update(banner={"text": text, "href": href or None,
                                                                       "id": banner_id}))
    return _changed("banner.save", "admin.banner_page", id=banner_id)


@bp.post("/settings")
@same_origin_only
def settings():
    try:
        per_hour = int(request.form.get("per_visitor_per_hour", ""))
    except ValueError:
        abort(400, "Rollouts per visitor per hour must be a whole number.")
    if not 0 <= per_hour <= MAX_PER_HOUR:
        abort(400, f"Rollouts per visitor per hour must be between 0 and {MAX_PER_HOUR}.")
    agents = [a.strip() for a in request.form.get("agents", "").replace(",", "\n").splitlines() if a.strip()]
    if len(agents) > 32 or any(not COLLECTION_KEY.match(a) for a in agents):
        abort(400, "Agents are names like terminus-2 (lowercase, digits, dashes), one per line, at most 32.")
    judges = list(dict.fromkeys(j.strip() for j in request.form.get("judges", "").replace(",", "\n").splitlines()
                                if j.strip()))
    if len(judges) > MAX_JUDGES or any(not JUDGE_ID.match(j) for j in judges):
        abort(400, f"Judges are model ids like {DEFAULT_JUDGES[0]} (org/name), one per line, at most {MAX_JUDGES}.")
    rollouts = {"enabled": request.form.get("enabled") == "on", "per_visitor_per_hour": per_hour, "agents": agents,
                "judges": judges}
    update_settings(_settings_path(), lambda data: data.update(rollouts=rollouts))
    return _changed("settings.save", "admin.settings_page", **rollouts)


@bp.post("/rollouts")
@same_origin_only
def rollouts():
    """Take a public rollout off community (everyone but its owner stops seeing it), or put it back."""
    run_id, action = request.form.get("run", "").strip(), request.form.get("action", "")
    if not valid_run_id(run_id):
        abort(400, "A run id is twelve lowercase letters and digits.")
    if action == "stop":
        return _stop(run_id)
    if action not in ("withdraw", "restore"):
        abort(400, "The action is withdraw (take the rollout off community), restore (put it back) or stop.")
    try:
        run = set_withdrawn(app_store(), run_id, withdrawn=action == "withdraw")
    except TakedownError as exc:
        abort(exc.status, str(exc))
    record(_settings_path(), current_visitor().name, f"rollout.{action}", run=run.id, env=run.env_id, task=run.ref)
    back = own_path(request.form.get("next"), url_for("admin.rollouts_page"))
    return redirect(back if back.startswith("/admin/") else url_for("admin.rollouts_page"), code=303)


def _stop(run_id: str):
    """Ask the worker running this rollout to stop it, through the settings file like every admin action: the job
    watches the file while it runs (rlx/runs/admin_stop.py) and ends the run "stopped"."""
    run = load_run(app_store(), run_id)
    if run is None:
        abort(404, "There is no run with that id.")
    if not run.active:
        abort(409, f"This rollout has already ended ({run.status}); there is nothing to stop.")
    update_settings(_settings_path(), lambda data: data.update(stop=add_stop(data.get("stop"), run_id)))
    record(_settings_path(), current_visitor().name, "rollout.stop", run=run.id, env=run.env_id, task=run.ref)
    back = own_path(request.form.get("next"), url_for("admin.rollouts_page"))
    return redirect(back if back.startswith("/admin/") else url_for("admin.rollouts_page"), code=303)
