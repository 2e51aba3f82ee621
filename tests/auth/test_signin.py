"""Signing in: with Hugging Face (the OpenID code flow against the OAuth stand-in), with a pasted token, and out.

The account lives in an encrypted cookie: it cannot be read, forged or stretched, and the token never reaches the
store, the logs or a page."""

from __future__ import annotations

import logging
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from rlx import create_app
from rlx.auth import session as account_cookie
from tests.stand_ins.hub_fixtures import ALICE, BOB
from tests.stand_ins.oauth import OAuthStandIn

ORIGIN = {"Origin": "http://localhost"}  # a form posted from our own page


@pytest.fixture
def provider(hub):
    stand_in = OAuthStandIn(hub).start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def signin_app(make_config, redis_client, hub, provider):
    config = make_config(HF_ENDPOINT=hub.url, OPENID_PROVIDER_URL=provider.url, OAUTH_CLIENT_ID=provider.client_id,
                         OAUTH_CLIENT_SECRET=provider.client_secret)
    return create_app(config)


def start_oauth(client, next_path="/"):
    """Press "Sign in with Hugging Face"; answer the provider's redirect like a browser: (authorize URL, callback)."""
    response = client.get("/signin/hf", query_string={"next": next_path})
    assert response.status_code == 302
    authorize_url = response.headers["Location"]
    at_provider = requests.get(authorize_url, allow_redirects=False, timeout=10)
    assert at_provider.status_code == 302, at_provider.text
    return authorize_url, at_provider.headers["Location"]


def follow_callback(client, callback_url):
    parts = urlsplit(callback_url)
    return client.get(parts.path, query_string=parts.query)


def signed_in_name(client) -> str | None:
    page = client.get("/signin").text
    marker = 'class="account-name">'
    return page.split(marker, 1)[1].split("<", 1)[0] if marker in page else None


def test_sign_in_with_hugging_face_asks_for_the_scopes_and_lands_on_the_next_page(signin_app, provider):
    client = signin_app.test_client()
    authorize_url, callback = start_oauth(client, next_path="/?q=chess")
    params = parse_qs(urlsplit(authorize_url).query)
    assert authorize_url.startswith(f"{provider.url}/oauth/authorize?")
    scopes = params["scope"][0].split()
    for needed in ("openid", "profile", "read-repos", "gated-repos", "read-memberships", "inference-api", "jobs"):
        assert needed in scopes
    assert params["state"][0] and params["nonce"][0] and params["code_challenge_method"] == ["S256"]
    response = follow_callback(client, callback)
    assert response.status_code == 303
    assert response.headers["Location"] == "/?q=chess"
    assert signed_in_name(client) == "alice"
    cookie = client.get_cookie(account_cookie.COOKIE)
    assert cookie.http_only and cookie.same_site == "Lax"
    assert provider.issued[0] not in cookie.value  # encrypted: the token cannot be read out of it


def test_a_replayed_or_forged_callback_signs_nobody_in(signin_app, provider):
    client = signin_app.test_client()
    _, callback = start_oauth(client)
    assert follow_callback(client, callback).status_code == 303
    other = signin_app.test_client()  # another browser replays the same code and state
    response = follow_callback(other, callback)
    assert response.status_code == 400
    assert "sign in again" in response.text
    assert signed_in_name(other) is None

    tampered = signin_app.test_client()
    _, callback = start_oauth(tampered)
    response = follow_callback(tampered, callback.replace("state=", "state=x"))
    assert response.status_code == 400 and signed_in_name(tampered) is None


@pytest.mark.parametrize("forgery", ["nonce", "signature", "audience"])
def test_an_id_token_that_does_not_check_out_is_refused(signin_app, provider, forgery):
    provider.forge.add(forgery)
    client = signin_app.test_client()
    _, callback = start_oauth(client)
    response = follow_callback(client, callback)
    assert response.status_code == 400
    assert signed_in_name(client) is None


def test_the_provider_declining_is_a_clear_page(signin_app):
    client = signin_app.test_client()
    response = client.get("/signin/callback", query_string={"error": "access_denied", "state": "x"})
    assert response.status_code == 400
    assert "did not sign you in" in response.text


def test_sign_in_with_hugging_face_when_the_provider_is_down_is_a_503(signin_app, provider):
    provider.stop()
    response = signin_app.test_client().get("/signin/hf")
    assert response.status_code == 503 and response.headers["Retry-After"]


def test_without_oauth_settings_only_the_token_form_is_offered(make_config, redis_client, hub):
    client = create_app(make_config(HF_ENDPOINT=hub.url)).test_client()
    page = client.get("/signin").text
    assert "Sign in with Hugging Face" not in page and 'name="token"' in page
    assert f'href="{hub.url}/settings/tokens"' in page  # where to make one, on the Hub this app reads
    assert client.get("/signin/hf").status_code == 404


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example",
                                    "/%0a", "javascript:alert(1)"])
def test_after_sign_in_only_our_own_paths_are_followed(make_config, redis_client, hub, target):
    client = create_app(make_config(HF_ENDPOINT=hub.url)).test_client()
    response = client.post("/signin/token", data={"token": ALICE, "next": target}, headers=ORIGIN)
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location == "/" or (location.startswith("/") and not location.startswith("//")
                               and "evil" not in location and "\t" not in location)


def test_a_pasted_token_signs_in_after_whoami_and_a_wrong_one_is_refused_without_echo(make_config, redis_client,
                                                                                      hub):
    client = create_app(make_config(HF_ENDPOINT=hub.url)).test_client()
    response = client.post("/signin/token", data={"token": "hf_not_a_real_token_123", "next": "/"}, headers=ORIGIN)
    assert response.status_code == 400
    assert "did not accept that token" in response.text
    assert "hf_not_a_real_token_123" not in response.text
    assert signed_in_name(client) is None
    assert client.post("/signin/token", data={"token": BOB}, headers=ORIGIN).status_code == 303
    assert signed_in_name(client) == "bob"
    assert hub.request_tokens[-1] == BOB  # checked with whoami-v2


def test_a_pasted_token_while_the_hub_is_down_is_a_503(make_config, redis_client, hub):
    client = create_app(make_config(HF_ENDPOINT=hub.url)).test_client()
    hub.fail(503, times=1, path_contains="whoami-v2")
    response = client.post("/signin/token", data={"token": ALICE}, headers=ORIGIN)
    assert response.status_code == 503 and response.headers["Retry-After"]
    assert ALICE not in response.text


def test_sign_out_ends_the_session(make_config, redis_client, hub):
    client = create_app(make_config(HF_ENDPOINT=hub.url)).test_client()
    client.post("/signin/token", data={"token": ALICE}, headers=ORIGIN)
    assert signed_in_name(client) == "alice"
    response = client.post("/signout", data={"next": "/signin"}, headers=ORIGIN)
    assert response.status_code == 303 and response.headers["Location"] == "/signin"
    assert signed_in_name(client) is None


def test_a_forged_tampered_or_expired_cookie_is_nobody(make_config, redis_client, hub):
    app = create_app(make_config(HF_ENDPOINT=hub.url))
    client = app.test_client()
    client.post("/signin/token", data={"token": ALICE}, headers=ORIGIN)
    good = client.get_cookie(account_cookie.COOKIE).value

    client.set_cookie(account_cookie.COOKIE, good[:-6] + ("AAAAAA" if not good.endswith("AAAAAA") else "BBBBBB"))
    assert signed_in_name(client) is None  # tampered
    other_secret = create_app(make_config(HF_ENDPOINT=hub.url, SESSION_SECRET="another-secret"))
    with other_secret.test_request_context():
        forged = account_cookie.seal(account_cookie.Account("admin", "Admin", ("rlx-admins",), ALICE,
                                                            time.time() + 3600))
    client.set_cookie(account_cookie.COOKIE, forged)
    assert signed_in_name(client) is None  # sealed with another secret
    with app.test_request_context():
        expired = account_cookie.seal(account_cookie.Account("alice", "alice", (), ALICE, time.time() - 1))
        assert account_cookie.unseal(good, now=time.time() + account_cookie.MAX_AGE_S + 60) is None
    client.set_cookie(account_cookie.COOKIE, expired)
    assert signed_in_name(client) is None  # past its own expiry


def test_the_session_never_outlives_the_token(signin_app, provider):
    provider.expires_in = 600
    client = signin_app.test_client()
    _, callback = start_oauth(client)
    follow_callback(client, callback)
    cookie = client.get_cookie(account_cookie.COOKIE)
    with signin_app.test_request_context():
        account = account_cookie.unseal(cookie.value)
    assert account.expires_at <= time.time() + 600
    assert cookie.expires is not None and cookie.expires.timestamp() <= time.time() + 601


def test_tokens_reach_neither_the_store_nor_the_logs_nor_a_page(signin_app, provider, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    client = signin_app.test_client()
    _, callback = start_oauth(client)
    follow_callback(client, callback)
    client.post("/signin/token", data={"token": ALICE}, headers=ORIGIN)
    pages = [client.get(path).text for path in ("/", "/signin", "/api/search", "/nowhere")]
    secrets_ = [provider.issued[0], ALICE]
    for secret in secrets_:
        assert all(secret not in page for page in pages)
        assert secret not in caplog.text
        for path in (tmp_path / "data").rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path


def run_owner_seen_by(app, client):
    """The owner id rlx/runs would record for a run started from this browser."""
    from rlx.web.runs.owner import visitor_id

    cookie = client.get_cookie(account_cookie.COOKIE)
    headers = {"Cookie": f"{account_cookie.COOKIE}={cookie.value}"} if cookie else {}
    with app.test_request_context(headers=headers):
        return visitor_id()


def test_runs_belong_to_the_signed_in_account_in_every_browser(make_config, redis_client, hub):
    app = create_app(make_config(HF_ENDPOINT=hub.url))
    laptop, phone, stranger = app.test_client(), app.test_client(), app.test_client()
    for client in (laptop, phone):
        client.post("/signin/token", data={"token": ALICE}, headers=ORIGIN)
    assert [run_owner_seen_by(app, c) for c in (laptop, phone, stranger)] == ["hf:alice", "hf:alice", None]
