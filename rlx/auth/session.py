"""The account cookie: who is signed in, and with which token, encrypted and authenticated (Fernet), so a visitor
can neither read the token out of it nor forge or stretch it.

The expiry is inside the encrypted payload and is the earlier of the token's own expiry and MAX_AGE_S after sign-in;
Fernet's timestamp is checked as well, so an old cookie replayed after a secret-keeping restart still dies.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field

from cryptography.fernet import Fernet, InvalidToken
from flask import Response, current_app, request

from rlx.http.origin import own_public_url

COOKIE = "rlx_account"
MAX_AGE_S = 8 * 3600  # as long as a Space's default sign-in (hf_oauth_expiration_minutes: 480)
MAX_ORGS = 64  # a cookie stays well under 4 KB


@dataclass(frozen=True)
class Account:
    name: str  # the Hub handle
    fullname: str
    orgs: tuple[str, ...]  # org handles, from whoami-v2
    token: str = field(repr=False)  # never in a repr, a log line or a page
    expires_at: float = 0.0
    via: str = "token"  # "oauth" or "token"

    def __str__(self) -> str:
        return self.name


def _fernet() -> Fernet:
    secret = current_app.config["RLX"].session_secret.encode()
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"rlx account cookie\0" + secret).digest()))


def seal(account: Account) -> str:
    data = asdict(account)
    data["orgs"] = list(account.orgs)[:MAX_ORGS]
    return _fernet().encrypt(json.dumps(data, separators=(",", ":")).encode()).decode()


def unseal(value: str, now: float | None = None) -> Account | None:
    """The account in a cookie, or None when it is forged, tampered with, from another secret or expired."""
    now = time.time() if now is None else now
    try:
        data = json.loads(_fernet().decrypt(value.encode(), ttl=MAX_AGE_S))
        account = Account(name=str(data["name"]), fullname=str(data["fullname"]),
                          orgs=tuple(str(o) for o in data["orgs"]), token=str(data["token"]),
                          expires_at=float(data["expires_at"]), via=str(data.get("via", "token")))
    except (InvalidToken, ValueError, KeyError, TypeError):
        return None
    return account if account.expires_at > now else None


def read_cookie() -> Account | None:
    value = request.cookies.get(COOKIE)
    return unseal(value) if value and len(value) < 4096 else None


def lifetime(expires_in) -> float:
    """When a new session ends: the token's own expiry if sooner than MAX_AGE_S."""
    try:
        seconds = min(float(expires_in), MAX_AGE_S) if expires_in else MAX_AGE_S
    except (TypeError, ValueError):
        seconds = MAX_AGE_S
    return time.time() + max(0.0, seconds)


def _secure() -> bool:
    public = own_public_url(current_app)
    return request.is_secure or bool(public and public.startswith("https://"))


def write_cookie(response: Response, account: Account) -> None:
    max_age = max(0, int(account.expires_at - time.time()))
    response.set_cookie(COOKIE, seal(account), max_age=max_age, httponly=True, secure=_secure(), samesite="Lax",
                        path="/")


def clear_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE, httponly=True, secure=_secure(), samesite="Lax", path="/")
