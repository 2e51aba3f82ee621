"""The web app: blueprints, one per area of URLs, and the helpers they share."""

from flask import Flask


def register_web(app: Flask) -> None:
    from rlx.web import (admission, api_search, catalog_db, envs, errors, explore, health, mcp_routes, runs, spaces,
                         tasks)
    from rlx.web.context import init_context

    from rlx import auth

    init_context(app)
    auth.init_app(app)
    admission.init_app(app)
    catalog_db.init_app(app)
    errors.init_app(app)
    app.register_blueprint(health.bp)
    app.register_blueprint(explore.bp)
    app.register_blueprint(api_search.bp)
    app.register_blueprint(envs.bp)
    app.register_blueprint(tasks.bp)
    app.register_blueprint(mcp_routes.bp)
    app.register_blueprint(spaces.bp)
    app.register_blueprint(runs.bp)
