"""What every template can use: the app's name, the theme, the header's search box."""

from __future__ import annotations

import functools
from pathlib import Path

from flask import Flask, current_app
from markupsafe import Markup

from rlx.queue.outage import retry_sentence
from rlx.adapters.key_labels import readable
from rlx.catalog.kinds import KINDS
from rlx.runs.outcome import LABELS as OUTCOME_LABELS
from rlx.runs.rollout_rules import offered_agents, unavailable_agents
from rlx.http.humanize import compact_number, dollars, file_size, operator_hint, relative_date
from rlx.http.naming import ref_beside_title
from rlx.http.richtext import render_code, render_markdown, render_verbatim
from rlx.http.gzip_parts import compressed_once
from rlx.http.stylesheets import minify


def init_context(app: Flask) -> None:
    app.jinja_env.filters["compact"] = compact_number
    app.jinja_env.filters["key_label"] = readable  # a chip's key in words: "1.0" alone says nothing
    app.jinja_env.filters["ago"] = relative_date
    app.jinja_env.filters["filesize"] = file_size
    app.jinja_env.filters["dollars"] = dollars
    app.jinja_env.filters["operator_hint"] = operator_hint
    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["code"] = render_code
    app.jinja_env.filters["verbatim"] = render_verbatim
    app.jinja_env.filters["ref_beside"] = ref_beside_title
    app.jinja_env.filters["outcome_label"] = lambda kind: OUTCOME_LABELS.get(kind, kind)
    app.jinja_env.globals["retry_sentence"] = retry_sentence  # a failing Hub's "tried again at …"
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True

    @app.context_processor
    def _globals():
        return {"app_name": "HF RL Explorer", "kind_labels": {k: v.label for k, v in KINDS.items()},
                "header_trending": header_trending, "inline_css": inline_css, "offered_agents": offered_agents,
                "unavailable_agents": unavailable_agents}


def header_trending() -> list[dict]:
    """The header search's suggestions before you type: the top trending environments (none when the catalog is
    not ready: a page never fails for want of suggestions). Every page asks, and they change only with the
    snapshot and the admin's hidden and pinned environments: read once per snapshot in use, then kept."""
    from rlx.snapshot.app_catalog import catalog, reader, settings
    from rlx.snapshot.queries import search_envs

    try:
        admin, generation = settings(), reader().generation
        kept = current_app.extensions.get("rlx.header_trending")
        if (kept is not None and generation is not None and kept[0] is generation
                and kept[1] == (admin.hidden, admin.pinned)):
            return kept[2]
        with catalog() as db:
            cards = search_envs(db, size=10, exclude_ids=admin.hidden, pinned=admin.pinned)["cards"]
        current_app.extensions["rlx.header_trending"] = (generation, (admin.hidden, admin.pinned), cards)
        return cards
    except Exception:  # the snapshot may be missing or being built
        return []


def inline_css(name: str = "app") -> Markup:
    """A stylesheet (app or pages), inlined and minified: the first response alone can draw the page (one request,
    no render-blocking CSS). The same on every page, so a large page's gzip reuses its compressed bytes."""
    return compressed_once(_minified_css(name))


@functools.lru_cache(maxsize=2)
def _minified_css(name: str) -> Markup:
    css = (Path(__file__).resolve().parent.parent / "static" / "css" / f"{name}.css").read_text()
    return Markup(minify(css))  # trusted, and checked by a test never to close the <style> element it sits in
