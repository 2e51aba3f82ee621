"""The sign-in pages: with Hugging Face (OAuth), with a pasted token, and sign-out.

Tokens travel in POST bodies and the encrypted account cookie only: never in a URL, a log line, the store or a page
(a refused token is not echoed back into the form)."""

from __future__ import annotations

import logging

from authlib.common.errors import AuthlibBaseError  # the root of its errors; its client costs 0.15 s to import
from joserfc.errors import JoseError
from flask import Blueprint, abort, current_app, redirect, request, session, url_for
from requests import RequestException

from rlx.auth import demo, session as account_cookie
from rlx.auth.hub_identity import TokenRejected, account_for
from rlx.auth.oauth import provider
from rlx.http.redirects import own_path
from rlx.auth.visitor import current_visitor, signed_out_for_now
from rlx.http.origin import own_public_url, same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.render import render
from rlx.sources.errors import Unavailable

bp = Blueprint("auth", __name__)
log = logging.getLogger("rlx.auth")
NEXT_KEY = "rlx_signin_next"


def _signin_page(status: int = 200, error: str | None = None):
    return render("pages/signin.html", status=status, error=error, oauth=provider() is not None,
                  demo_handle=demo.demo_handle(),
                  next=own_path(request.values.get("next")), visitor=current_visitor())


def _signed_in(account, target: str):
    response = redirect(own_path(target), code=303)
    account_cookie.write_cookie(response, account)
    response.headers["Cache-Control"] = "no-store"
    log.info("signin name=%s via=%s", account.name, account.via)
    return response


@bp.get("/signin")
def signin():
    return _signin_page()


@bp.get("/signin/hf")
@rate_limited("sign_in")
def signin_hf():
    client = provider()
    if client is None:
        abort(404, "Sign-in with Hugging Face is not set up here; paste a token instead.")
    session[NEXT_KEY] = own_path(request.args.get("next"))
    public = own_public_url(current_app)  # the admin app, served apart, signs in on its own origin
    callback = f"{public}{url_for('auth.callback')}" if public else url_for("auth.callback", _external=True)
    try:
        return client.authorize_redirect(callback)
    except (RequestException, ValueError, AuthlibBaseError):
        log.warning("signin.discovery_failed provider=%s", current_app.config["RLX"].openid_provider_url)
        return _unavailable("Hugging Face's sign-in did not answer; try again in a moment.")


@bp.get("/signin/callback")
def callback():
    client = provider()
    if client is None:
        abort(404, "Sign-in with Hugging Face is not set up here.")
    if "error" in request.args:
        return _signin_page(400, "Hugging Face did not sign you in (the request was declined or cancelled).")
    try:
        token = client.authorize_access_token()
    except (AuthlibBaseError, JoseError) as exc:  # bad state or code, a forged or mismatched ID token: start again
        log.warning("signin.refused reason=%s", getattr(exc, "error", type(exc).__name__))
        return _signin_page(400, "That sign-in could not be completed (it was stale or tampered with); "
                                 "please sign in again.")
    except (RequestException, ValueError):
        return _unavailable("Hugging Face's sign-in did not answer; try again in a moment.")
    access = token.get("access_token") if isinstance(token, dict) else None
    if not access:
        return _signin_page(400, "Hugging Face answered without an access token; please sign in again.")
    try:
        account = account_for(access, account_cookie.lifetime(token.get("expires_in")), via="oauth")
    except TokenRejected:
        return _signin_page(400, "Hugging Face's token for this sign-in was refused by the Hub; "
                                 "please sign in again.")
    return _signed_in(account, session.pop(NEXT_KEY, "/"))


@bp.post("/signin/token")
@same_origin_only
@rate_limited("token")
def signin_token():
    token = request.form.get("token", "").strip()
    if not token:
        return _signin_page(400, "Paste a Hugging Face access token (it starts with hf_).")
    try:
        account = account_for(token, account_cookie.lifetime(None), via="token")
    except TokenRejected as exc:
        return _signin_page(400, str(exc))
    except Unavailable:  # offline, or the Hub is down: say so on this page, the form still there
        return _unavailable("Hugging Face could not be reached to check this token, so you cannot sign in right "
                            "now; everything else works without signing in.")
    return _signed_in(account, request.form.get("next"))


@bp.post("/signin/demo")
@same_origin_only
def signin_demo():
    """Only in demo mode: sign in as the stand-in account, which has no token."""
    if not demo.demo_handle():
        abort(404)
    return _signed_in(demo.demo_account(), request.form.get("next"))


@bp.post("/signout")
@same_origin_only
def signout():
    response = redirect(own_path(request.form.get("next")), code=303)
    account_cookie.clear_cookie(response)
    session.pop(NEXT_KEY, None)
    signed_out_for_now()
    response.headers["Cache-Control"] = "no-store"
    return response


def _unavailable(message: str):
    """Hugging Face out of reach: the sign-in page again with one plain sentence (and the way to try again)."""
    response = _signin_page(503, message)
    response.headers["Retry-After"] = "30"
    return response
