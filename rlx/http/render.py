"""One view, two answers: the full page for a normal request, one block of the same template for htmx.

A request gets the fragment only when htmx asked for a region (HX-Request with an HX-Target) and it is not a
boosted navigation or a history restore: every pushed URL must come back as a full page. `Vary` names the
headers we branch on, so caches keep the two answers apart. What a request is comes from flask-htmx.
"""

from __future__ import annotations

from flask import make_response, render_template
from flask_htmx import HTMX
from jinja2_fragments.flask import render_block

htmx = HTMX()  # bound to the app by init_app; `bool(htmx)` is "htmx sent this request"
VARY = ("HX-Request", "HX-Target")


def init_app(app) -> None:
    htmx.init_app(app)


def swapping_in_place() -> bool:
    """htmx asked for part of a page it is showing (not a boosted navigation or a history restore)."""
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def wants_fragment(target: str) -> bool:
    return swapping_in_place() and htmx.target == target


def render(template: str, fragment: str | tuple[str, ...] | None = None, status: int = 200, **context):
    """Render `template`, or only its block named like the element htmx targets (one of `fragment`).

    A block rendered alone gets `swapped` set, so it can add out-of-band parts that the full page holds elsewhere.
    """
    names = (fragment,) if isinstance(fragment, str) else tuple(fragment or ())
    chosen = next((name for name in names if wants_fragment(name)), None)
    if chosen:
        body = render_block(template, chosen, swapped=chosen, **context)
    else:
        body = render_template(template, swapped=None, **context)
    response = make_response(body, status)
    response.vary.update(VARY)
    return response


def render_partial_or_page(partial: str, page: str, **context):
    """`partial` alone for an htmx request that swaps it in place, else `page` (which includes it): a link htmx
    would load into a region still opens a whole page with JS off, or in a new tab."""
    response = make_response(render_template(partial if swapping_in_place() else page, **context))
    response.vary.update(VARY)
    return response
