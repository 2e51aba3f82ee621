"""Who is asking: the one place every part of the app learns the visitor's identity and token.

`current_visitor()` is the signed-in account (or None); `visitor_key()` a stable, token-free id for things a visitor
owns (rollouts, rate limits): the account's handle when signed in, else None.
"""

from __future__ import annotations

from flask import g, has_request_context

from rlx.auth import demo
from rlx.auth.session import Account, read_cookie


def current_visitor() -> Account | None:
    if not has_request_context():
        return None
    if "rlx_visitor" not in g:
        account = read_cookie()
        g.rlx_visitor = account if account is None or demo.still_valid(account) else None
    return g.rlx_visitor


def visitor_token() -> str | None:
    """The Hub token of the signed-in visitor; None for nobody and for the demo's stand-in, which has none."""
    visitor = current_visitor()
    return visitor.token if visitor and visitor.via != demo.VIA else None


def visitor_key() -> str | None:
    """The owner id of what this visitor makes: "hf:<handle>" when signed in."""
    visitor = current_visitor()
    return f"hf:{visitor.name}" if visitor else None


def cap_holder() -> str:
    """Whom a per-person cap counts (active runs, batches, playground sessions, the hourly limit): the signed-in
    account, else the client's address (behind the proxies the deployment declares in RLX_PROXY_HOPS). Never the
    session cookie: anyone can fetch a new one."""
    from rlx.http.ratelimit import client_address

    return visitor_key() or "addr:" + client_address()


def cap_holder_id() -> str:
    """`cap_holder()` as a record may keep it: a hash, so no run or batch file holds a visitor's address."""
    import hashlib

    return "cap:" + hashlib.sha256(cap_holder().encode()).hexdigest()[:32]


def signed_out_for_now() -> None:
    """This request already ended the session (sign-out): later reads in it see nobody."""
    g.rlx_visitor = None
