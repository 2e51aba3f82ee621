"""One view, two answers: the full page for a normal request, one block of the same template for htmx.

A request gets the fragment only when htmx asked for a region (HX-Request with an HX-Target) and it is not a
boosted navigation or a history restore: every pushed URL must come back as a full page. `Vary` names the
headers we branch on, so caches keep the two answers apart.
"""

from __future__ import annotations

from flask import make_response, render_template, request
from jinja2_fragments.flask import render_block


def wants_fragment(target: str) -> bool:
    headers = request.headers
    return (
        headers.get("HX-Request") == "true"
        and headers.get("HX-Target") == target
        and headers.get("HX-Boosted") != "true"
        and headers.get("HX-History-Restore-Request") != "true"
    )


def render(template: str, fragment: str | tuple[str, ...] | None = None, status: int = 200, **context):
    """Render `template`, or only its block named like the element htmx targets (one of `fragment`)."""
    names = (fragment,) if isinstance(fragment, str) else tuple(fragment or ())
    chosen = next((name for name in names if wants_fragment(name)), None)
    if chosen:
        body = render_block(template, chosen, **context)
    else:
        body = render_template(template, **context)
    response = make_response(body, status)
    response.vary.update(("HX-Request", "HX-Target"))
    return response
