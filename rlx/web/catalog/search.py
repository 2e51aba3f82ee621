"""One search, read from a request, answered from the snapshot with the admin's settings applied.

The home page and /api/search both call `run_search`, so the page and the JSON always agree.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from flask import current_app, request, url_for
from werkzeug.datastructures import MultiDict

from rlx.catalog.kinds import KINDS, fold_kind, kind_label
from rlx.snapshot.health_facet import VERDICTS as HEALTH_VERDICTS
from rlx.snapshot.queries import SORT_COLUMNS, QueryError, search_envs
from rlx.snapshot.task_search import search_tasks
from rlx.snapshot.schema import read_meta
from rlx.snapshot.app_catalog import catalog, settings

PAGE_SIZE = 24
TASK_MATCHES = 6  # tasks shown beside the environments a search finds
TRENDING_MAX = 48
SORTS = {"trending": "Trending", "downloads": "Most downloaded", "likes": "Most liked", "modified": "Recently updated",
         "created": "Newest", "tasks": "Most tasks"}


@dataclass
class SearchQuery:
    q: str = ""
    kind: str = ""
    collection: str = ""
    tags: list[str] = field(default_factory=list)
    health: str = ""  # one health verdict (rlx/snapshot/health_facet.py), or every environment
    sort: str = "trending"
    page: int = 1
    size: int = PAGE_SIZE

    @classmethod
    def from_args(cls, args: MultiDict) -> "SearchQuery":
        """Read the arguments; anything unknown is a QueryError with one sentence (a 400)."""
        kind = fold_kind(args.get("kind", ""))
        if kind and kind not in KINDS:
            raise QueryError(f"kind must be one of {', '.join(KINDS)}.")
        health = args.get("health", "").strip().lower()
        if health and health not in HEALTH_VERDICTS:
            raise QueryError(f"health must be one of {', '.join(HEALTH_VERDICTS)}.")
        sort = args.get("sort", "trending") or "trending"
        if sort not in SORT_COLUMNS:
            raise QueryError(f"sort must be one of {', '.join(SORT_COLUMNS)}.")
        tags = []
        for raw in args.getlist("f")[:8]:
            name, sep, value = raw.partition(":")
            if not sep or name != "tag" or not value:
                raise QueryError("a filter reads f=tag:<tag>.")
            tags.append(value[:100])
        try:
            page, size = int(args.get("page", 1) or 1), int(args.get("size", PAGE_SIZE) or PAGE_SIZE)
        except ValueError:
            raise QueryError("page and size must be whole numbers.") from None
        return cls(q=args.get("q", "").strip()[:300], kind=kind, collection=args.get("collection", "")[:48],
                   tags=tags, health=health, sort=sort, page=page, size=size)

    def args(self, **change) -> dict:
        """URL arguments for this query with `change` applied (page resets unless given)."""
        values = {"q": self.q, "kind": self.kind, "collection": self.collection, "f": [f"tag:{t}" for t in self.tags],
                  "health": self.health, "sort": self.sort if self.sort != "trending" else "", "page": 1, **change}
        if values.get("page") == 1:
            values["page"] = ""
        return {k: v for k, v in values.items() if v not in ("", None, [])}

    def toggled_tag(self, tag: str) -> dict:
        tags = [t for t in self.tags if t != tag] if tag in self.tags else [*self.tags, tag]
        return self.args(f=[f"tag:{t}" for t in tags])

    @property
    def filtered(self) -> bool:
        return bool(self.q or self.kind or self.collection or self.tags or self.health)


def run_search(query: SearchQuery, trending: int = 0, with_tasks: bool = False) -> dict:
    """Cards, total and facets for `query`; with `trending`, also the trending row and the header numbers; with
    `with_tasks`, the first tasks the words name (the home page shows them beside the environments)."""
    admin = settings()
    collection = admin.collections.get(query.collection) if query.collection else None
    if query.collection and collection is None:
        raise QueryError(f"there is no collection {query.collection!r}.")
    started = time.perf_counter()
    links = CardLinks()
    with catalog() as db:
        result = search_envs(db, q=query.q, kind=query.kind or None, filters={"tags": query.tags},
                             sort=query.sort, page=query.page, size=query.size, exclude_ids=admin.hidden,
                             only_ids=collection.items if collection else None, pinned=admin.pinned,
                             health=query.health or None)
        if with_tasks and query.q and query.page == 1:  # the words may name a task rather than an environment
            found = search_tasks(db, q=query.q, size=TASK_MATCHES, facets=False, exclude_ids=admin.hidden)
            result["tasks"] = {"total": found["total"], "total_about": found["total_about"],
                               "items": [_task_link(t) for t in found["tasks"]]}
        if trending:
            row = search_envs(db, sort="trending", size=min(trending, TRENDING_MAX), exclude_ids=admin.hidden,
                              pinned=admin.pinned)
            result["trending"] = [_card(c, links) for c in row["cards"]]
            result["numbers"] = _numbers(db, row["facets"]["kind"])
    result["cards"] = [_card(c, links) for c in result["cards"]]
    _claim_openenv_when_verified(result["cards"] + result.get("trending", []))
    result["pages"] = max(1, -(-result["total"] // query.size))
    result["collections"] = [{"key": c.key, "title": c.title, "count": len(c.items)}
                             for c in admin.collections.values()]
    result["db_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return result


class CardLinks:
    """The page a card opens, exactly as url_for("envs.env_page" or "spaces.space_page", org=, name=) writes it,
    at one url_for per page kind instead of one per card (those were a fifth of a search request's time): both
    routes are "<prefix>/<org>/<name>", each part quoted by the default converter. Most keys hold only characters
    that quoting leaves as they are, and are written as they stand."""

    def __init__(self):
        # The prefixes depend on the app's routes and where it is mounted (SCRIPT_NAME) only: kept on the app, per
        # mount point, since two url_for calls were a tenth of a search request's time.
        mounts = current_app.extensions.setdefault("rlx.card_link_prefixes", {})
        prefixes = mounts.get(request.script_root)
        if prefixes is None:
            prefixes = {}
            if len(mounts) < 4:  # the server's setting (never a request header): one mount point, as a rule
                mounts[request.script_root] = prefixes
        self._prefix: dict[str, str] = prefixes
        url_map = current_app.url_map
        self._quote = url_map.converters["default"](url_map).to_url

    def url(self, repo_type: str, key: str) -> str:
        # Every dataset opens (its adapter is chosen on the page), and every Space opens its own page.
        page = "envs.env_page" if repo_type == "dataset" else "spaces.space_page"
        prefix = self._prefix.get(page)
        if prefix is None:
            prefix = self._prefix[page] = url_for(page, org="o", name="n").removesuffix("/o/n")
        if _AS_QUOTED.fullmatch(key):
            return f"{prefix}/{key}"
        org, _, name = key.partition("/")
        return f"{prefix}/{self._quote(org)}/{self._quote(name)}"


# "<org>/<name>" in the characters the default converter never quotes (letters, digits, "_.-~" and its safe
# "!$&'()*+,/:;=@"): the quoted parts are the parts themselves.
_AS_QUOTED = re.compile(r"[A-Za-z0-9_.~!$&'()*+,:;=@-]+/[A-Za-z0-9_.~!$&'()*+,/:;=@-]+")


def _card(row: dict, links: CardLinks) -> dict:
    return {**row, "kind_label": kind_label(row["kind"], row["repo_type"]), "title": row["heading"],
            "summary": row["brief"], "url": links.url(row["repo_type"], row["key"]),
            "tags": [t for t in row["tags"] if ":" not in t][:5]}


def _claim_openenv_when_verified(cards: list[dict]) -> None:
    """A Space's card says "OpenEnv Space" only after a fresh successful check of its server (rlx.live); its tag
    alone makes it a Space that declares OpenEnv. Without Redis nothing is verified, and the search still answers."""
    from rlx.live.space_checks import verified_now

    spaces = [c for c in cards if c["kind"] == "openenv" and c["repo_type"] == "space"]
    verified = verified_now([c["key"] for c in spaces])
    for card in spaces:
        card["verified"] = card["key"] in verified
        card["kind_label"] = kind_label(card["kind"], "space", card["verified"])


def _task_link(task: dict) -> dict:
    org, _, name = task["env_id"].partition("/")
    return {**task, "url": url_for("tasks.task_page", org=org, name=name, ref=task["ref"])}


def _numbers(db, kind_counts) -> dict:
    meta = read_meta(db)
    counts = meta.get("counts") or {}
    by_kind = dict(kind_counts)
    total = sum(by_kind.values())
    spaces = min(counts.get("spaces", 0), total)  # the build counts them; hidden ones are not in the facet
    return {"environments": total, "datasets": total - spaces, "spaces": spaces,
            "tasks": counts.get("tasks", 0), "kinds": [k for k in KINDS if by_kind.get(k)],
            "built_at": meta.get("built_at")}
