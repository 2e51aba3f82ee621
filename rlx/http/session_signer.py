"""Flask's signed session cookie, with its signer made once per secret rather than on every request.

Flask makes a new itsdangerous serializer for each request, and itsdangerous checks every new one by serializing an
empty dict through the app's JSON: a second JSON encoding on every answer, cookie or not. The serializer holds
nothing but the keys, so one per set of keys serves every request; a changed SECRET_KEY or SECRET_KEY_FALLBACKS
makes a new one.
"""

from __future__ import annotations

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer


class SignedCookieSessions(SecureCookieSessionInterface):
    def __init__(self):
        self._made: tuple[tuple, URLSafeTimedSerializer | None] = ((), None)

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        keys = (app.secret_key, *(app.config["SECRET_KEY_FALLBACKS"] or ()))
        made_for, serializer = self._made
        if keys != made_for:
            serializer = super().get_signing_serializer(app)
            self._made = (keys, serializer)
        return serializer
