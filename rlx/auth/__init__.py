"""Accounts: sign-in with Hugging Face or a pasted token, the encrypted account cookie, who the visitor is."""

from __future__ import annotations

from flask import Flask

from rlx.auth.visitor import current_visitor, visitor_key, visitor_token

__all__ = ["current_visitor", "init_app", "visitor_key", "visitor_token"]


def init_app(app: Flask) -> None:
    from rlx.auth import routes
    from rlx.auth.oauth import init_oauth

    init_oauth(app)
    app.register_blueprint(routes.bp)

    @app.context_processor
    def _visitor():
        return {"visitor": current_visitor()}

    @app.after_request
    def _private_when_signed_in(response):
        """An answer may depend on the account cookie: shared caches keep visitors apart, and never store what a
        signed-in visitor was shown."""
        if "Vary" in response.headers:
            response.vary.add("Cookie")
        else:  # as vary.add writes it, without parsing an empty header into a set first
            response.headers["Vary"] = "Cookie"
        if current_visitor() is not None or "Set-Cookie" in response.headers:
            response.headers["Cache-Control"] = "private, no-store"
        return response
