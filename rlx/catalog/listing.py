"""The listing: every repository that may be an environment, fetched from the source in one pass.

Tagged datasets and Spaces come from one query per tag; the items of admin-curated collections that no tag
query returned are looked up one by one (a bounded number). A listing that cannot be fetched whole raises, so a
half listing never replaces a whole one. The indexer keeps its listing in the store (listing.json.gz) for the
app's own code paths; `write_listing_file` and `read_listing_file` are the two ends of that file.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from rlx.sources.base import RepoRecord, Source
from rlx.sources.errors import AccessDenied, RepoNotFound
from rlx.store import read_json, write_json

log = logging.getLogger("rlx.catalog")

# Datasets: Harbor task folders, and the tags of the formats whose tasks are rows.
DATASET_TAGS = ("harbor", "verifiers", "nemo-gym", "verl", "skyrl", "openenv", "rl-environment")
# Spaces: OpenEnv servers and other environment apps.
SPACE_TAGS = ("openenv", "rl-environment")
# A Space built from an article template is a page about something, not an environment to talk to.
ARTICLE_TAG_MARK = "article-template"
MAX_COLLECTION_LOOKUPS = 500  # repositories looked up one by one for collections, per listing
LISTING_FILE_VERSION = 1


def fetch_listing(source: Source, token: str | None = None, settings=None) -> list[RepoRecord]:
    """Datasets and Spaces carrying a catalog tag, plus collections' items, trending first.

    Spaces must be Docker apps that are not article templates. `settings` is an AdminSettings (or None): its
    collections name extra environments ("org/name" for a dataset, "space:org/name" for a Space).
    """
    datasets = source.list_repos("dataset", DATASET_TAGS, token=token)
    spaces = source.list_repos("space", SPACE_TAGS, token=token)
    records = {(r.repo_type, r.id): r for r in [*datasets, *spaces]}
    for key in _collection_items(settings)[:MAX_COLLECTION_LOOKUPS]:
        if key not in records and (record := _look_up(source, *key, token=token)) is not None:
            records[key] = record
    listed = [r for r in records.values() if r.repo_type == "dataset" or is_space_app(r)]
    listed.sort(key=lambda r: (-r.trending_score, r.repo_type, r.id))
    return listed


def is_space_app(record: RepoRecord) -> bool:
    """A Space the explorer lists: a Docker app, not a static page or an article template."""
    return record.sdk == "docker" and not any(ARTICLE_TAG_MARK in str(tag).lower() for tag in record.tags)


def _collection_items(settings) -> list[tuple[str, str]]:
    """(repo type, repo id) of every collection item, each once, in the settings' order."""
    if settings is None:
        return []
    keys: dict[tuple[str, str], None] = {}
    for collection in settings.collections.values():
        for item in collection.items:
            key = ("space", item[len("space:"):]) if item.startswith("space:") else ("dataset", item)
            keys.setdefault(key, None)
    return list(keys)


def _look_up(source: Source, repo_type: str, repo_id: str, token: str | None) -> RepoRecord | None:
    """A collection item's record; None when it is gone or hidden from us (the collection outlived it)."""
    try:
        return source.repo_info(repo_type, repo_id, token=token)
    except (RepoNotFound, AccessDenied) as exc:
        log.info("listing.collection_item_missing repo=%s/%s reason=%s", repo_type, repo_id, exc)
        return None


def write_listing_file(path: Path, records: list[RepoRecord], fetched_at: str, source: str) -> None:
    """The listing as gzipped JSON, written atomically."""
    write_json(path, {"version": LISTING_FILE_VERSION, "fetched_at": fetched_at, "source": source,
                      "records": [dataclasses.asdict(r) for r in records]}, compress=True)


def read_listing_file(path: Path) -> tuple[list[RepoRecord], str] | None:
    """(records, fetched_at) from a listing file, or None when it is absent or of another version."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("version") != LISTING_FILE_VERSION:
        return None
    records = [RepoRecord(**{**item, "tags": tuple(item.get("tags") or ())}) for item in data["records"]]
    return records, data["fetched_at"]
