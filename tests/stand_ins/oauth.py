"""A stand-in for Hugging Face's OpenID Connect provider (https://huggingface.co/oauth/*), on 127.0.0.1.

It speaks the real protocol: the discovery document, /oauth/authorize (code flow: client_id, a registered redirect
URI — any port on loopback, state, nonce, PKCE S256), /oauth/token (client_secret_basic, single-use codes, the PKCE
verifier checked), /oauth/userinfo and /oauth/jwks, with an RS256 ID token signed by a key it serves in its JWKS.
Each access token it issues is registered with the Hub stand-in, so whoami-v2 answers for it.

The person consenting is `consent_as` (a Hub stand-in identity's name); tests steer faults with `forge` switches.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.stand_ins.hub import HubStandIn

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass
class _Grant:
    client_id: str
    redirect_uri: str
    scope: str
    nonce: str | None
    challenge: str
    user: str


@dataclass
class OAuthStandIn:
    hub: HubStandIn
    client_id: str = "rlx-client"
    client_secret: str = "rlx-secret"
    redirect_uris: tuple[str, ...] = ("http://localhost/signin/callback",)
    consent_as: str = "alice"
    expires_in: int = 28800
    forge: set[str] = field(default_factory=set)  # "nonce", "signature", "audience": a bad ID token, on purpose
    issued: list[str] = field(default_factory=list)  # access tokens handed out
    authorize_requests: list[dict] = field(default_factory=list)

    def __post_init__(self):
        self.key = RSAKey.generate_key(2048, parameters={"kid": "hf-stand-in-1"}, private=True)
        self.other_key = RSAKey.generate_key(2048, parameters={"kid": "hf-stand-in-1"}, private=True)
        self._codes: dict[str, _Grant] = {}
        self._lock = threading.Lock()
        self._server = None

    # -- lifecycle ------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "OAuthStandIn":
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.provider = self
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- the protocol ---------------------------------------------------------------------------------------------

    def discovery(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/oauth/authorize",
            "token_endpoint": f"{self.url}/oauth/token",
            "userinfo_endpoint": f"{self.url}/oauth/userinfo",
            "jwks_uri": f"{self.url}/oauth/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "scopes_supported": ["openid", "profile", "email", "read-repos", "gated-repos", "read-memberships",
                                 "inference-api", "jobs", "write-repos", "manage-repos"],
        }

    def _redirect_ok(self, uri: str) -> bool:
        """Exact match, except that an http loopback URI may use any port (as the Hub allows)."""
        if uri in self.redirect_uris:
            return True
        parts = urlsplit(uri)
        return parts.scheme == "http" and parts.hostname in LOOPBACK and any(
            urlsplit(r).hostname in LOOPBACK and urlsplit(r).path == parts.path for r in self.redirect_uris)

    def authorize(self, params: dict) -> tuple[int, dict, bytes]:
        self.authorize_requests.append(params)
        if params.get("client_id") != self.client_id:
            return _json(400, {"error": "invalid_client"})
        redirect_uri = params.get("redirect_uri", "")
        if not self._redirect_ok(redirect_uri):
            return _json(400, {"error": "invalid_request", "error_description": "redirect_uri not registered"})
        if params.get("response_type") != "code" or "openid" not in params.get("scope", "").split():
            return _redirect(redirect_uri, {"error": "invalid_request", "state": params.get("state", "")})
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return _redirect(redirect_uri, {"error": "invalid_request", "state": params.get("state", "")})
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = _Grant(self.client_id, redirect_uri, params["scope"], params.get("nonce"),
                                       params["code_challenge"], self.consent_as)
        return _redirect(redirect_uri, {"code": code, "state": params.get("state", "")})

    def token(self, headers, form: dict) -> tuple[int, dict, bytes]:
        if _basic(headers) != (self.client_id, self.client_secret):
            return _json(401, {"error": "invalid_client"})
        if form.get("grant_type") != "authorization_code":
            return _json(400, {"error": "unsupported_grant_type"})
        with self._lock:
            grant = self._codes.pop(form.get("code", ""), None)  # single use
        if grant is None or grant.redirect_uri != form.get("redirect_uri"):
            return _json(400, {"error": "invalid_grant"})
        verifier = form.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if challenge != grant.challenge:
            return _json(400, {"error": "invalid_grant", "error_description": "PKCE verification failed"})
        ident = next(i for i in self.hub.tokens.values() if i.name == grant.user)
        access = f"hf_oauth_{secrets.token_urlsafe(24)}"
        self.hub.add_token(access, ident.name, grants=ident.grants, orgs=ident.orgs)
        self.issued.append(access)
        return _json(200, {"access_token": access, "token_type": "bearer", "expires_in": self.expires_in,
                           "scope": grant.scope, "id_token": self._id_token(grant, ident)})

    def _id_token(self, grant: _Grant, ident) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "sub": f"user-{ident.name}", "aud": self.client_id, "iat": now,
                  "exp": now + 3600, "auth_time": now, "name": ident.fullname or ident.name,
                  "preferred_username": ident.name, "picture": "", "profile": f"{self.hub.url}/{ident.name}"}
        if grant.nonce is not None:
            claims["nonce"] = "not-the-nonce" if "nonce" in self.forge else grant.nonce
        if "audience" in self.forge:
            claims["aud"] = "another-client"
        key = self.other_key if "signature" in self.forge else self.key
        return jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)

    def userinfo(self, headers) -> tuple[int, dict, bytes]:
        token = (headers.get("Authorization") or "").removeprefix("Bearer ")
        ident = self.hub.tokens.get(token)
        if ident is None or token not in self.issued:
            return _json(401, {"error": "invalid_token"})
        return _json(200, {"sub": f"user-{ident.name}", "name": ident.fullname or ident.name,
                           "preferred_username": ident.name, "picture": "", "isPro": False,
                           "orgs": [{"sub": f"org-{o}", "name": o, "preferred_username": o, "picture": "",
                                     "isEnterprise": False, "roleInOrg": "read"} for o in ident.orgs]})

    def jwks(self) -> tuple[int, dict, bytes]:
        return _json(200, {"keys": [self.key.as_dict(private=False)]})


def _json(status: int, payload: dict) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json", "Cache-Control": "no-store"}, json.dumps(payload).encode()


def _redirect(uri: str, params: dict) -> tuple[int, dict, bytes]:
    sep = "&" if "?" in uri else "?"
    return 302, {"Location": f"{uri}{sep}{urlencode(params)}"}, b""


def _basic(headers) -> tuple[str, str] | None:
    value = headers.get("Authorization") or ""
    if not value.startswith("Basic "):
        return None
    try:
        user, _, password = base64.b64decode(value[6:]).decode().partition(":")
    except ValueError:
        return None
    return user, password


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:
        pass

    def _answer(self, status: int, headers: dict, body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        provider: OAuthStandIn = self.server.provider
        parts = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(parts.query).items()}
        routes = {
            "/.well-known/openid-configuration": lambda: _json(200, provider.discovery()),
            "/oauth/authorize": lambda: provider.authorize(params),
            "/oauth/userinfo": lambda: provider.userinfo(self.headers),
            "/oauth/jwks": provider.jwks,
        }
        route = routes.get(parts.path)
        self._answer(*(route() if route else _json(404, {"error": "not found"})))

    def do_POST(self) -> None:
        provider: OAuthStandIn = self.server.provider
        length = int(self.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        if urlsplit(self.path).path == "/oauth/token":
            self._answer(*provider.token(self.headers, form))
        else:
            self._answer(*_json(404, {"error": "not found"}))
