"""The signed session cookie (sign-in's state between redirects): read back while the secret stands, refused once
the secret changes, still read under the new secret while the old one is listed as a fallback."""

from flask import session


def test_the_session_cookie_follows_the_secret(app):
    app.add_url_rule("/keep", "keep", lambda: session.__setitem__("next", "/d/a/b") or "kept")
    app.add_url_rule("/seen", "seen", lambda: session.get("next", "nothing"))
    client = app.test_client()
    client.get("/keep")
    assert client.get("/seen").text == "/d/a/b"
    old = app.secret_key
    app.secret_key = "another-secret"
    assert client.get("/seen").text == "nothing"
    app.config["SECRET_KEY_FALLBACKS"] = [old]
    assert client.get("/seen").text == "/d/a/b"
