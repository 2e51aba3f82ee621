"""Who may use the admin app: a signed-in member of ADMIN_ORG, asked of the Hub (whoami-v2) on every request, so a
member who leaves the org, or whose token is revoked, is out at once, whatever their cookie says."""

from __future__ import annotations

from flask import abort, current_app, redirect, request, url_for

from rlx.auth.hub_identity import TokenRejected, org_handles, whoami
from rlx.auth import demo
from rlx.auth.visitor import current_visitor

OPEN_ENDPOINTS = ("auth.", "static", "to_admin")  # signing in must be reachable before membership is known


def check_member():
    """A before_request hook: None lets the request through; otherwise the answer to send instead."""
    endpoint = request.endpoint or ""
    if endpoint.startswith(OPEN_ENDPOINTS):
        return None
    org = current_app.config["RLX"].admin_org
    if not org:
        abort(403, "The admin is closed: ADMIN_ORG is not set.")
    visitor = current_visitor()
    if visitor is None:
        return redirect(url_for("auth.signin", next=request.full_path.rstrip("?")), code=303)
    if visitor.via == demo.VIA:  # the demo's stand-in is a member of nothing
        abort(403, f"Only members of {org} may use the admin.")
    try:
        orgs = org_handles(whoami(visitor.token))  # an outage raises Unavailable: a 503, never a pass
    except TokenRejected:
        return redirect(url_for("auth.signin", next=request.full_path.rstrip("?")), code=303)
    if org.lower() not in (o.lower() for o in orgs):
        abort(403, f"Only members of {org} may use the admin.")
    return None
