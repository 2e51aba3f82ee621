"""The admin app: a separate WSGI app (admin_wsgi.py, `rlx admin`) for members of ADMIN_ORG only.

None of its routes exist in the public app. It shares the store (settings.json, audit.jsonl, indexes), Redis and
the session secret with the explorer, so a visitor signed in on the same host is signed in here, and the explorer
applies each change as soon as it sees the settings file's new modification time.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, redirect

from rlx.config import Config

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
PREFIX = "/admin"
STATIC = Path(__file__).resolve().parent.parent / "static"


def create_admin_app(config: Config | None = None) -> Flask:
    import rq_dashboard

    from rlx import auth, queue, sources, store
    from rlx.admin import edits, membership, views
    from rlx.web import catalog_db, errors
    from rlx.web.context import init_context

    config = config or Config.from_env()
    app = Flask("rlx.admin", template_folder=str(TEMPLATES), static_folder=str(STATIC))
    app.config.update(RLX=config, SECRET_KEY=config.session_secret, SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_NAME="rlx_admin_session",
                      RQ_DASHBOARD_REDIS_URL=config.redis_url, RQ_DASHBOARD_DISABLE_DELETE=True)
    app.extensions["rlx.store"] = store.Store(config.storage_dir)
    app.extensions["rlx.source"] = sources.open_source(config)
    queue.init_app(app)
    catalog_db.init_app(app)
    init_context(app)
    errors.init_app(app)
    auth.init_app(app)
    app.before_request(membership.check_member)

    @app.context_processor
    def _admin_layout():
        return {"layout": "admin/base.html", "home_endpoint": "admin.overview", "admin_org": config.admin_org}

    # Every admin URL sits under /admin/, a prefix the public app never serves (a test holds it to that).
    app.register_blueprint(views.bp, url_prefix=PREFIX)
    app.register_blueprint(edits.bp, url_prefix=PREFIX)
    app.add_url_rule("/", "to_admin", lambda: redirect(f"{PREFIX}/", code=302))
    if config.redis_url:  # `rlx admin` always sets one; without it there is no queue to look at
        app.register_blueprint(rq_dashboard.blueprint, url_prefix=f"{PREFIX}/rq")
        rq_dashboard.web.setup_rq_connection(app)
    return app
