"""HF RL Explorer: explore the reinforcement-learning environments on the Hugging Face Hub."""

from __future__ import annotations

from flask import Flask

from rlx.config import Config

__all__ = ["Config", "create_app", "create_worker_app"]
MAX_BODY_BYTES = 1024 * 1024  # the largest request body read; more is a 413 before it is parsed


def create_app(config: Config | None = None) -> Flask:
    """Build the app: nothing happens at import time, so tests build as many apps as they like."""
    from rlx.web import register_web

    app = _core_app(config or Config.from_env())
    register_web(app)
    return app


def create_worker_app(config: Config | None = None) -> Flask:
    """The app as an RQ worker's jobs use it (settings, store, source, Redis, the snapshot's reader and the admin
    settings), without the pages: a worker serves none, and they cost it 0.3 s of CPU at each start (1.5 -> 1.2 s
    with its jobs' modules)."""
    from rlx.snapshot import app_catalog

    app = _core_app(config or Config.from_env())
    app_catalog.init_app(app)
    return app


def _core_app(config: Config) -> Flask:
    from rlx.http.hosts import TrustedHosts
    from rlx.http.json_provider import MarkupSafeJSON
    from rlx.http.proxies import behind_proxies
    from rlx.http.session_signer import SignedCookieSessions
    from rlx.http.template_code import PROCESS_TEMPLATE_CODE
    from rlx.http.url_rules import LazyBuildRule

    app = Flask(__name__)
    app.url_rule_class = LazyBuildRule
    app.jinja_options = {**app.jinja_options, "bytecode_cache": PROCESS_TEMPLATE_CODE}
    app.json = MarkupSafeJSON(app)
    app.session_interface = SignedCookieSessions()
    app.wsgi_app = behind_proxies(TrustedHosts(app.wsgi_app, config.public_url, config.trusted_hosts),
                                  config.proxy_hops)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        RLX=config,
        SECRET_KEY=config.session_secret,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        TEMPLATES_AUTO_RELOAD=False,
        JSON_SORT_KEYS=False,
    )

    from rlx import queue, sources, store
    from rlx.http import compression

    compression.init_app(app)
    app.extensions["rlx.store"] = store.Store(config.storage_dir)
    app.extensions["rlx.source"] = sources.open_source(config)
    queue.init_app(app)
    return app
