"""The demo's stand-in account: the signed-in pages, offline, for a person trying `rlx demo`.

It exists only while RLX_DEMO_ACCOUNT is set (which `rlx demo` does, and which the config refuses beside the Hub).
It holds no token, so it can never act on the Hub; a cookie made for it counts for nobody once the setting is gone.
"""

from __future__ import annotations

from flask import current_app

from rlx.auth.session import Account, lifetime

VIA = "demo"


def demo_handle() -> str | None:
    """The stand-in's handle while demo mode is on, else None."""
    return current_app.config["RLX"].demo_account


def demo_account() -> Account:
    return Account(name=demo_handle(), fullname="Demo user", orgs=(), token="", expires_at=lifetime(None), via=VIA)


def still_valid(account: Account) -> bool:
    """A real account always; the stand-in only in the demo that made it, under the same handle."""
    return account.via != VIA or account.name == demo_handle()
