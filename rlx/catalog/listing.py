"""The listing: every repository that may be an environment, fetched from the source in one pass."""

from __future__ import annotations

from rlx.sources.base import RepoRecord, Source

# Datasets: Harbor task folders, and the tags of the formats whose tasks are rows.
DATASET_TAGS = ("harbor", "verifiers", "nemo-gym", "verl", "openenv", "rl-environment")
# Spaces: OpenEnv servers and other environment apps.
SPACE_TAGS = ("openenv", "rl-environment")


def fetch_listing(source: Source, token: str | None = None) -> list[RepoRecord]:
    """Datasets and Spaces carrying a catalog tag, trending first. Spaces must be apps (not static pages)."""
    datasets = source.list_repos("dataset", DATASET_TAGS, token=token)
    spaces = [s for s in source.list_repos("space", SPACE_TAGS, token=token) if s.sdk not in ("static",)]
    records = [*datasets, *spaces]
    records.sort(key=lambda r: (-r.trending_score, r.repo_type, r.id))
    return records
