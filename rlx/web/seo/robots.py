"""/robots.txt, and `X-Robots-Tag: noindex` on every machine answer (the JSON API, MCP, metrics, health).

Crawlers are kept off what is not a page for people or costs us work per request: the API and MCP, sign-in,
live checks and streams (a run's events, a batch's progress), searches inside a dataset, random picks, and every
URL with a query string (filters, sorts and pages of lists whose items the sitemap already names). Link-preview
pictures stay open: the bots that draw link cards read robots.txt too.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, request

from rlx.web.seo.page_meta import public_origin

bp = Blueprint("robots", __name__)

# A run or batch page is not listed (it is noindex) but stays fetchable: the bots that draw a shared link's card
# obey robots.txt, and a page they may not fetch gets no card.
DISALLOWED = (
    "/api/", "/mcp", "/metrics", "/healthz", "/readyz", "/signin", "/signout", "/banner/", "/r/*/events",
    "/r/*/stop", "/b/*/progress", "/b/*/results.", "/compare", "/d/*/search", "/d/*/random", "/d/*/row",
    "/d/*/progress", "/d/*/reindex", "/d/*/batch", "/t/*/folder", "/t/*/run", "/s/*/play", "/s/*/status",
    "/s/*/live", "/s/*/wake", "/s/*/restart", "/s/*/routes", "/*?",
)
ALLOWED = ("/preview/",)
MACHINE_PREFIXES = ("/api/", "/mcp", "/metrics", "/healthz", "/readyz")


@bp.get("/robots.txt")
def robots_txt():
    lines = ["User-agent: *", *(f"Allow: {path}" for path in ALLOWED),
             *(f"Disallow: {path}" for path in DISALLOWED), "", f"Sitemap: {public_origin()}/sitemap.xml", ""]
    return Response("\n".join(lines), mimetype="text/plain", headers={"Cache-Control": "public, max-age=86400"})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.after_request
    def _machine_answers_are_not_for_search(response):
        if request.path.startswith(MACHINE_PREFIXES):
            response.headers["X-Robots-Tag"] = "noindex"
        return response
