"""/sitemap.xml (a sitemap index) and its shards /sitemap-<n>.xml, from the catalog snapshot, and the Spaces' task
pages from their servers' last checks (/sitemap-space-tasks.xml, rlx/web/seo/space_tasks_sitemap.py).

Each shard is written while its rows come off the database (rlx/snapshot/public_pages.py): a response streams in
chunks of a few hundred URLs, so serving the whole catalog never holds more than one chunk. Every URL is absolute on
the public origin (RLX_PUBLIC_URL), dated by the environment's last change in the snapshot.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from flask import Blueprint, Response, abort, current_app

from rlx.snapshot import public_pages
from rlx.snapshot.app_catalog import reader, settings
from rlx.web.seo import space_tasks_sitemap
from rlx.web.seo.page_meta import public_origin, url_path

bp = Blueprint("sitemap", __name__)

XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHUNK_URLS = 250
MAX_SHARD_NUMBER = 100_000  # far past any catalog; a larger number is refused before it reaches the database
CACHE = "public, max-age=3600"


def shard_size() -> int:
    return current_app.config.get("RLX_SITEMAP_SHARD_SIZE", public_pages.SHARD_SIZE)


def page_path(what: str, env_id: str, ref: str | None) -> str:
    """The page a sitemap row names, as a path: /d/org/name, /s/org/name or /t/org/name/<ref>."""
    if env_id.startswith("space:"):
        return url_path("/s/" + env_id[len("space:"):])
    if what == "task":
        return url_path(f"/t/{env_id}/{ref}")
    return url_path("/d/" + env_id)


def _lastmod(value: str | None, fallback: str) -> str:
    """W3C datetime (what sitemaps accept); the snapshot's build time when the environment has no date."""
    text = (value or fallback or "").strip()
    return text[:19] + "Z" if len(text) >= 19 and text[10] == "T" else text[:10]


@bp.get("/sitemap.xml")
def sitemap_index():
    origin, snapshot = public_origin(), reader()
    built_at = snapshot.status().get("built_at") or ""
    with snapshot.connection() as db:
        shards = public_pages.plan(db, shard_size())
    lastmod = f"<lastmod>{escape(_lastmod(None, built_at))}</lastmod>" if built_at else ""
    entries = "".join(f"<sitemap><loc>{escape(origin)}/sitemap-{n}.xml</loc>{lastmod}</sitemap>\n"
                      for n in range(1, shards.count + 1))
    entries += f"<sitemap><loc>{escape(origin)}{space_tasks_sitemap.PATH}</loc>{lastmod}</sitemap>\n"
    body = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{XMLNS}">\n{entries}</sitemapindex>\n'
    return Response(body, mimetype="application/xml", headers={"Cache-Control": CACHE})


@bp.get("/sitemap-<int:number>.xml")
def sitemap_shard(number: int):
    if not 1 <= number <= MAX_SHARD_NUMBER:
        abort(404, "There is no sitemap with that number.")
    origin, snapshot, hidden, size = public_origin(), reader(), settings().hidden, shard_size()
    built_at = snapshot.status().get("built_at") or ""
    with snapshot.connection() as db:
        if number > public_pages.plan(db, size).count:
            abort(404, f"There is no sitemap {number}: /sitemap.xml lists them all.")
    return Response(_shard_body(snapshot, number, hidden, size, origin, built_at), mimetype="application/xml",
                    headers={"Cache-Control": CACHE})


@bp.get(space_tasks_sitemap.PATH)
def sitemap_space_tasks():
    """The Spaces' task pages their servers' last checks advertised (rlx/web/seo/space_tasks_sitemap.py)."""
    from rlx.queue import get_redis

    origin, snapshot, hidden = public_origin(), reader(), settings().hidden
    built_at, redis_db = snapshot.status().get("built_at") or "", get_redis()

    def pages(db):
        return ((url_path(path), modified) for path, modified in space_tasks_sitemap.space_task_pages(db, redis_db,
                                                                                                      hidden))

    return Response(_urlset(snapshot, pages, origin, built_at), mimetype="application/xml",
                    headers={"Cache-Control": CACHE})


def _shard_body(snapshot, number: int, hidden, size: int, origin: str, built_at: str):
    def pages(db):
        return ((page_path(what, env_id, ref), modified)
                for what, env_id, ref, modified in public_pages.shard_rows(db, number, hidden, size))

    return _urlset(snapshot, pages, origin, built_at)


def _urlset(snapshot, pages, origin: str, built_at: str):
    """A urlset's XML in chunks, of the (path, modified) `pages(db)` yields; the connection is held while the
    response streams (a swap waits for it)."""
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{XMLNS}">\n'
    base = escape(origin)
    with snapshot.connection() as db:
        chunk = []
        for path, modified in pages(db):
            chunk.append(f"<url><loc>{base}{escape(path)}</loc>"
                         f"<lastmod>{escape(_lastmod(modified, built_at))}</lastmod></url>\n")
            if len(chunk) >= CHUNK_URLS:
                yield "".join(chunk)
                chunk.clear()
        yield "".join(chunk)
    yield "</urlset>\n"
