"""What a page says about itself to search engines and link previews: its canonical URL, Open Graph and Twitter
card tags, whether it may be indexed, and JSON-LD for a dataset.

Every URL is on the public origin (RLX_PUBLIC_URL), never the Host a request named. A page about one environment
tells the world about it only when the environment is public and listed: in the snapshot (which holds no private or
gated repository) and not hidden by the admin. Otherwise (a signed-in visitor's private repository, a gated or a
hidden one) the page is noindex and its sharing tags are the site's own, naming nothing of it.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

from flask import Flask, current_app, request
from markupsafe import Markup

from rlx.catalog.kinds import kind_label as catalog_kind_label
from rlx.live.space_checks import verified_now
from rlx.snapshot.public_pages import env_card, task_card
from rlx.snapshot.app_catalog import catalog, settings

SITE_DESCRIPTION = ("Explore the reinforcement-learning environments on the Hugging Face Hub: Harbor tasks, "
                    "OpenEnv Spaces and datasets of prompts.")
PREVIEW_STYLE = "4"  # bump when the drawing changes: every preview is drawn anew, its URL changes with it
# Pages about one dataset, and pages about one Space (their URL rule names <org> and <name>).
DATASET_BLUEPRINTS = {"envs", "tasks", "community"}
SPACE_BLUEPRINTS = {"spaces", "playground", "space_tasks", "space_routes"}
# Pages worth no search result: one visitor's work, a search inside a dataset, a form.
NOINDEX_ENDPOINTS = {"auth.signin", "community.compare", "envs.part_search", "runs.run_page", "batches.batch_page"}
# One visitor's run or batch may be private, or about a private repository: its page shares only the site's tags.
SHARE_NOTHING_ENDPOINTS = {"runs.run_page", "batches.batch_page"}


PATH_SAFE = "/:@!$&'()*+,;=-._~"  # kept as they are in a URL path; everything else percent-encoded


def url_path(path: str) -> str:
    """A decoded path as it is written in a URL (the sitemap and the canonical link spell a page alike)."""
    return quote(path, safe=PATH_SAFE)


def public_origin() -> str:
    """scheme://host[:port] visitors use: RLX_PUBLIC_URL, or (unset, as in development) this request's own, whose
    Host has already been checked against the trusted names."""
    return current_app.config["RLX"].public_url or request.host_url.rstrip("/")


def public_env(env_id: str) -> dict | None:
    """The snapshot's card of a public, listed environment; None for anything else (or with no snapshot yet)."""
    if env_id in settings().hidden:
        return None
    try:
        with catalog() as db:
            return env_card(db, env_id)
    except Exception:  # no snapshot loaded: say nothing about any environment
        return None


def preview_version(card: dict) -> str:
    """A short digest of everything a preview draws: its URL changes exactly when its picture does."""
    drawn = [PREVIEW_STYLE, *(str(card.get(k)) for k in ("id", "kind", "heading", "task_count", "likes",
                                                          "downloads", "repo_type"))]
    return hashlib.sha256("\0".join(drawn).encode()).hexdigest()[:16]


def preview_path(card: dict) -> str:
    letter = "s" if card["repo_type"] == "space" else "d"
    return f"/preview/{letter}/{card['key']}.png?v={preview_version(card)}"


def page_env_id() -> str | None:
    """The environment this page is about, from its URL rule: "org/name", "space:org/name", or None."""
    args = request.view_args or {}
    blueprint = request.blueprint or ""
    if "org" not in args or "name" not in args:
        return None
    key = f"{args['org']}/{args['name']}"
    if blueprint in SPACE_BLUEPRINTS:
        return "space:" + key
    return key if blueprint in DATASET_BLUEPRINTS else None


def page_meta(error: bool = False) -> dict:
    """The tags base.html writes into every page's head (`error`: an error page, noindex and about nothing)."""
    origin = public_origin()
    meta = {"origin": origin, "canonical": origin + url_path(request.path),
            "noindex": error or request.endpoint in NOINDEX_ENDPOINTS,
            "shareable": not error and request.endpoint not in SHARE_NOTHING_ENDPOINTS,
            "description": SITE_DESCRIPTION, "image": origin + "/preview/site.png", "image_alt": "HF RL Explorer",
            "json_ld": None}
    env_id = page_env_id()
    if env_id is None or error:
        return meta
    card = public_env(env_id)
    if card is None:
        meta.update(noindex=True, shareable=False)
        return meta
    if card["kind"] == "openenv" and card["repo_type"] == "space":  # the head claims what the page claims: OpenEnv only after a fresh check
        card["verified"] = bool(verified_now([card["key"]]))
    meta.update(description=describe(card), image=origin + preview_path(card),
                image_alt=f"{card['heading']}: {kind_label(card)}, {card['task_count']:,} tasks")
    if card["repo_type"] == "dataset" and request.endpoint == "envs.env_page":
        meta["json_ld"] = dataset_json_ld(card, origin)
    if request.endpoint == "tasks.task_page":
        task = _listed_task(env_id, request.view_args.get("ref", ""))
        if task and task["brief"]:
            meta["description"] = task["brief"]
    return meta


def _listed_task(env_id: str, ref: str) -> dict | None:
    try:
        with catalog() as db:
            return task_card(db, env_id, ref)
    except Exception:  # no snapshot loaded: the environment's description stands
        return None


def kind_label(card: dict) -> str:
    """The card's kind in words (rlx.catalog.kinds decides them): a Space declaring OpenEnv claims no more
    until a check verified it."""
    return catalog_kind_label(card["kind"], card["repo_type"], bool(card.get("verified")))


def describe(card: dict) -> str:
    """One or two sentences about an environment: its own brief, or what it is and how many tasks it holds."""
    if card.get("brief"):
        return card["brief"]
    counted = f"{card['task_count']:,} task{'' if card['task_count'] == 1 else 's'}"
    return f"{card['key']}: {kind_label(card)} on the Hugging Face Hub, {counted}, answers withheld."


def dataset_json_ld(card: dict, origin: str) -> Markup:
    """schema.org Dataset for a dataset environment's page, safe inside a <script> element."""
    url = f"{origin}/d/{card['key']}"
    data = {
        "@context": "https://schema.org", "@type": "Dataset", "name": card["heading"], "description": describe(card),
        "url": url, "identifier": card["key"], "isAccessibleForFree": True,
        "creator": {"@type": "Organization", "name": card["key"].split("/", 1)[0]},
        "keywords": [kind_label(card), "reinforcement learning", "RL environment"],
        "includedInDataCatalog": {"@type": "DataCatalog", "name": "HF RL Explorer", "url": origin + "/"},
        "image": origin + preview_path(card),
    }
    if card.get("modified"):
        data["dateModified"] = card["modified"]
    text = json.dumps(data, ensure_ascii=False)
    # "<" never appears raw, so no value can close the script element it sits in.
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def init_app(app: Flask) -> None:
    @app.context_processor
    def _meta():
        return {"page_meta": page_meta}
