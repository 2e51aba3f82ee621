"""The home page: the banner, the numbers, trending rows, one search with kind, facets, sort, cards and pages.

Its first response already holds the first page of cards (no second request for data); every control is a
link or a GET form, and htmx only swaps the region that changed.
"""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from rlx.auth.own_repos import my_repos
from rlx.auth.visitor import current_visitor
from rlx.snapshot.health_facet import NOT_CHECKED
from rlx.snapshot.app_catalog import settings
from rlx.http.origin import same_origin_only
from rlx.http.ratelimit import rate_limited
from rlx.http.redirects import own_path
from rlx.http.render import VARY, htmx, render, wants_fragment
from rlx.web.catalog.search import PAGE_SIZE, SORTS, TRENDING_MAX, SearchQuery, run_search

bp = Blueprint("explore", __name__)

TRENDING_PER_PAGE = 8  # two rows of four on a wide screen
# The first response draws this many of the page's cards, and the rest when their place scrolls into view: the
# first paint then fits in 10 KB on the wire (benchmarks/first_paint.py). `?cards=all` draws them all in one page
# (the link that stands in for the rest with JS off), and is the URL htmx asks for the rest with.
FIRST_CARDS = 12
BANNER_COOKIE = "rlx_banner_closed"
WEEK_S = 7 * 24 * 3600


@bp.get("/")
def home():
    query = SearchQuery.from_args(request.args)
    if wants_fragment("later_cards"):  # the rest of a first response's cards: no trending, numbers or facets
        return render("pages/home.html", fragment="later_cards", result=run_search(query), first_cards=FIRST_CARDS)
    try:
        trending_page = max(1, min(int(request.args.get("tp", 1) or 1), TRENDING_MAX // TRENDING_PER_PAGE))
    except ValueError:
        trending_page = 1
    result = run_search(query, trending=TRENDING_MAX, with_tasks=True)
    trending = result["trending"]
    first = (trending_page - 1) * TRENDING_PER_PAGE
    banner = settings().banner
    if banner and request.cookies.get(BANNER_COOKIE) == banner["id"]:
        banner = None
    tag_facet = {"label": "Tags", "open": True, "values": [
        {"value": tag, "n": n, "on": tag in query.tags, "href": url_for("explore.home", **query.toggled_tag(tag))}
        for tag, n in result["facets"]["tags"]]}
    health_facet = {"label": "Health", "open": bool(query.health), "values": [
        {"value": verdict, "n": n, "on": verdict == query.health,
         "href": url_for("explore.home", **query.args(health="" if verdict == query.health else verdict))}
        for verdict, n in result["facets"]["health"]]}
    if not query.health and all(v["value"] == NOT_CHECKED for v in health_facet["values"]):
        health_facet["values"] = []  # nothing found was checked: no facet of one value
    visitor = current_visitor()
    mine, mine_note = my_repos(visitor) if visitor else ([], None)
    return render(
        "pages/home.html", fragment=("results", "trending", "later_cards"), query=query, result=result, q=query.q,
        sorts=SORTS, first_cards=FIRST_CARDS, whole_page=request.args.get("cards") == "all",
        later_url=_later_url(query),
        tag_facet=tag_facet, health_facet=health_facet, mine=mine, mine_note=mine_note,
        trending=trending[first:first + TRENDING_PER_PAGE], trending_page=trending_page,
        trending_pages=max(1, -(-len(trending) // TRENDING_PER_PAGE)), numbers=result["numbers"], banner=banner,
    )


def _later_url(query: SearchQuery) -> str:
    """This page of results with every card drawn (its size kept, so "the rest" are this page's cards)."""
    size = {"size": query.size} if query.size != PAGE_SIZE else {}
    return url_for("explore.home", **query.args(page=query.page), **size, cards="all")


@bp.post("/banner/dismiss")
@same_origin_only
@rate_limited("writes")
def dismiss_banner():
    """Close the banner for a week (a cookie on this browser only)."""
    banner = settings().banner
    response = redirect(own_path(request.form.get("next")), code=303)
    if banner:
        response.set_cookie(BANNER_COOKIE, banner["id"], max_age=WEEK_S, httponly=True, samesite="Lax")
    if htmx:  # the banner is removed in place: nothing to redirect to
        response.status_code, response.data = 200, b""
        response.headers.pop("Location", None)
    response.vary.update(VARY)
    return response
