"""The catalog's list page: every environment, filtered by words and kind."""

from __future__ import annotations

import time

from flask import Blueprint, current_app, request, url_for

from rlx.catalog import KINDS, fetch_listing, kind_of
from rlx.web.render import render

bp = Blueprint("explore", __name__)

_LISTING_TTL = 60.0


def _listing():
    """The source's listing, kept a minute per process (the snapshot replaces this in production)."""
    cached = current_app.extensions.get("rlx.listing")
    if cached and time.monotonic() - cached[0] < _LISTING_TTL:
        return cached[1]
    records = fetch_listing(current_app.extensions["rlx.source"])
    current_app.extensions["rlx.listing"] = (time.monotonic(), records)
    return records


def _card(record):
    kind = kind_of(record)
    return {
        "id": record.id,
        "repo_type": record.repo_type,
        "title": record.pretty_name,
        "kind": kind,
        "kind_label": KINDS[kind].label,
        "tags": [t for t in record.tags if ":" not in t][:5],
        "likes": record.likes,
        "downloads": record.downloads,
        "modified": record.last_modified,
        "summary": str(record.card.get("description") or record.card.get("short_description") or ""),
        # Pages exist for the formats an adapter reads (Harbor so far); other cards are not links yet.
        "url": url_for("envs.env_page", org=record.org, name=record.name) if kind == "harbor" else None,
    }


@bp.get("/")
def home():
    q = request.args.get("q", "").strip()[:200]
    kind = request.args.get("kind", "")
    cards = [_card(r) for r in _listing() if not r.private]
    counts = {}
    for card in cards:
        counts[card["kind"]] = counts.get(card["kind"], 0) + 1
    if q:
        words = q.lower().split()
        cards = [c for c in cards if all(w in f"{c['id']} {c['title']} {' '.join(c['tags'])}".lower() for w in words)]
    if kind in KINDS:
        cards = [c for c in cards if c["kind"] == kind]
    kinds = [(k, KINDS[k].label, n) for k, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return render("pages/home.html", fragment="results", cards=cards, q=q, kind=kind, kinds=kinds)
