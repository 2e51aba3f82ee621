"""The web app: blueprints, one per area of URLs, and the helpers they share."""

from flask import Flask


def register_web(app: Flask) -> None:
    from rlx.http import error_answers, headers, origin, render
    from rlx.web import admission, api_docs, mcp_routes
    from rlx.snapshot import app_catalog
    from rlx.web.catalog import api_search
    from rlx.web.runs import community
    from rlx.web.environments import envs
    from rlx.web.catalog import explore
    from rlx.web.health import checks as health
    from rlx.web.spaces import playground
    from rlx.web.runs import pages as runs
    from rlx.web.spaces import routes as space_routes
    from rlx.web.spaces import tasks as space_tasks
    from rlx.web.spaces import pages as spaces
    from rlx.web.environments import tasks
    from rlx.web.runs import batches
    from rlx.web.health import metrics
    from rlx.web.seo import page_meta
    from rlx.web.seo import previews
    from rlx.web.seo import robots
    from rlx.web.environments import rollout_pages
    from rlx.web.seo import sitemap
    from rlx.web.runs import compare_sets
    from rlx.web.environments import health as env_health
    from rlx.web.runs import mine as myruns
    from rlx.http.template_context import init_context

    from rlx import auth

    headers.init_app(app)  # first: its nonce exists before any other hook can answer with a page
    init_context(app)
    render.init_app(app)
    auth.init_app(app)
    admission.init_app(app)
    origin.init_app(app)
    app_catalog.init_app(app)
    error_answers.init_app(app)
    metrics.init_app(app)
    page_meta.init_app(app)
    robots.init_app(app)
    app.register_blueprint(sitemap.bp)
    app.register_blueprint(previews.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(explore.bp)
    app.register_blueprint(api_search.bp)
    app.register_blueprint(api_docs.bp)
    app.register_blueprint(envs.bp)
    app.register_blueprint(tasks.bp)
    app.register_blueprint(mcp_routes.bp)
    app.register_blueprint(spaces.bp)
    app.register_blueprint(runs.bp)
    app.register_blueprint(community.bp)
    app.register_blueprint(space_tasks.bp)
    app.register_blueprint(space_routes.bp)
    app.register_blueprint(batches.bp)
    app.register_blueprint(rollout_pages.bp)
    app.register_blueprint(myruns.bp)
    app.register_blueprint(compare_sets.bp)
    app.register_blueprint(env_health.bp)
    playground.init_app(app)
