"""The admin app: a separate WSGI app (admin_wsgi.py, `rlx admin`) for members of ADMIN_ORG only.

None of its routes exist in the public app. It shares the store (settings.json, audit.jsonl, indexes), Redis and
the session secret with the explorer, so a visitor signed in on the same host is signed in here, and the explorer
applies each change as soon as it sees the settings file's new modification time.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, abort, redirect, request

from rlx.config import Config

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
PREFIX = "/admin"
STATIC = Path(__file__).resolve().parent.parent / "static"


def create_admin_app(config: Config | None = None) -> Flask:
    import rq_dashboard

    from rlx import MAX_BODY_BYTES, auth, queue, sources, store
    from rlx.admin import edits, security_headers, membership, views
    from rlx.store.settings import SettingsError
    from rlx.http import error_answers, origin
    from rlx.snapshot import app_catalog
    from rlx.http.template_context import init_context
    from rlx.http.hosts import TrustedHosts
    from rlx.http.proxies import behind_proxies

    config = config or Config.from_env()
    app = Flask("rlx.admin", template_folder=str(TEMPLATES), static_folder=str(STATIC))
    own_url = config.admin_url or config.public_url  # its own origin, when it is served apart from the explorer
    app.wsgi_app = behind_proxies(TrustedHosts(app.wsgi_app, own_url, config.trusted_hosts), config.proxy_hops)
    app.config.update(RLX=config, OWN_PUBLIC_URL=own_url, SECRET_KEY=config.session_secret,
                      SESSION_COOKIE_HTTPONLY=True, MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_NAME="rlx_admin_session",
                      RQ_DASHBOARD_REDIS_URL=config.redis_url, RQ_DASHBOARD_DISABLE_DELETE=True)
    app.extensions["rlx.store"] = store.Store(config.storage_dir)
    app.extensions["rlx.source"] = sources.open_source(config)
    security_headers.init_app(app)  # first: its nonce exists before any other hook can answer with a page
    queue.init_app(app)
    app_catalog.init_app(app)
    init_context(app)
    error_answers.init_app(app)
    app.register_error_handler(SettingsError, lambda exc: error_answers.error_response(409, str(exc)))
    auth.init_app(app)
    app.before_request(membership.check_member)
    origin.init_app(app)  # every POST, the dashboard's included, comes from the admin's own pages
    app.before_request(_no_changes_by_get)

    @app.context_processor
    def _admin_layout():
        settings_file = app.extensions["rlx.settings"]
        settings_file.get()  # up to date, so the page says whether the file as it is now is refused
        return {"layout": "admin/base.html", "home_endpoint": "admin.overview", "admin_org": config.admin_org,
                "settings_problem": settings_file.problem}

    # Every admin URL sits under /admin/, a prefix the public app never serves (a test holds it to that).
    app.register_blueprint(views.bp, url_prefix=PREFIX)
    app.register_blueprint(edits.bp, url_prefix=PREFIX)
    app.add_url_rule("/", "to_admin", lambda: redirect(f"{PREFIX}/", code=302))
    if config.redis_url:  # `rlx admin` always sets one; without it there is no queue to look at
        app.register_blueprint(rq_dashboard.blueprint, url_prefix=f"{PREFIX}/rq")
        rq_dashboard.web.setup_rq_connection(app)
    return app


def _no_changes_by_get():
    """The dashboard's "requeue all" also answers GET, which a link on any site could trigger; its own button
    POSTs, so GET is refused."""
    if request.endpoint == "rq_dashboard.requeue_all" and request.method != "POST":
        abort(405, "Requeueing changes the queue: use the dashboard's button (a POST).")
