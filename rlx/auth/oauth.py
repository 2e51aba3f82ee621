"""Sign in with Hugging Face: the OpenID Connect code flow through authlib, discovered from OPENID_PROVIDER_URL.

authlib keeps state, nonce and the PKCE verifier in Flask's signed session cookie between the redirect and the
callback, and checks the ID token (issuer, audience, nonce, signature against the provider's JWKS) when the token
answer carries one. The account itself is then asked of whoami-v2 with the access token, the same check a pasted
token gets.
"""

from __future__ import annotations

from flask import Flask, current_app

PROVIDER = "huggingface"


def init_oauth(app: Flask) -> None:
    config = app.config["RLX"]
    if not config.oauth_enabled:
        return
    from authlib.integrations.flask_client import OAuth  # 0.15 s to import: only where sign-in is set up

    oauth = OAuth(app)
    oauth.register(
        PROVIDER,
        client_id=config.oauth_client_id,
        client_secret=config.oauth_client_secret,
        server_metadata_url=f"{config.openid_provider_url}/.well-known/openid-configuration",
        client_kwargs={"scope": config.oauth_scopes, "code_challenge_method": "S256", "timeout": 10,
                       "token_endpoint_auth_method": "client_secret_basic" if config.oauth_client_secret
                       else "none"},
    )
    app.extensions["rlx.oauth"] = oauth


def provider():
    """The registered client, or None when sign-in with Hugging Face is not configured."""
    oauth = current_app.extensions.get("rlx.oauth")
    return oauth.create_client(PROVIDER) if oauth is not None else None
