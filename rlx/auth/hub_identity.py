"""Who a token belongs to, asked of the Hub (GET /api/whoami-v2): the check behind a pasted token, the org list
behind the admin app, and the account made at the end of OAuth sign-in."""

from __future__ import annotations

import requests
from flask import current_app

from rlx.auth.session import MAX_ORGS, Account
from rlx.sources.errors import Unavailable

TIMEOUT_S = (5, 10)
MAX_TOKEN_CHARS = 512


class TokenRejected(Exception):
    """The Hub does not accept this token (the message never contains it)."""


def whoami(token: str) -> dict:
    if not token or len(token) > MAX_TOKEN_CHARS or any(c.isspace() or not c.isprintable() for c in token):
        raise TokenRejected("That is not a Hugging Face access token.")
    endpoint = current_app.config["RLX"].hf_endpoint
    try:
        response = requests.get(f"{endpoint}/api/whoami-v2", headers={"Authorization": f"Bearer {token}"},
                                timeout=TIMEOUT_S, allow_redirects=False)
    except requests.RequestException:
        raise Unavailable("The Hub did not answer who this token belongs to; try again shortly.") from None
    if response.status_code in (401, 403):
        raise TokenRejected("The Hub did not accept that token (it may be revoked or mistyped).")
    if response.status_code != 200:
        raise Unavailable(f"The Hub answered {response.status_code} when asked who this token belongs to.")
    try:
        data = response.json()
    except ValueError:
        raise Unavailable("The Hub's answer about this token was not JSON.") from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or data.get("type") not in ("user", None):
        raise TokenRejected("Only a user's token can sign in (not an organization's or an app's).")
    return data


def org_handles(data: dict) -> tuple[str, ...]:
    orgs = data.get("orgs") if isinstance(data.get("orgs"), list) else []
    return tuple(o["name"] for o in orgs if isinstance(o, dict) and isinstance(o.get("name"), str))[:MAX_ORGS]


def account_for(token: str, expires_at: float, via: str) -> Account:
    data = whoami(token)
    return Account(name=data["name"][:96], fullname=str(data.get("fullname") or data["name"])[:96],
                   orgs=org_handles(data), token=token, expires_at=expires_at, via=via)
