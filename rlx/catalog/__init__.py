"""The catalog: which repositories are environments, what kind each is, and in what order they trend."""

from rlx.catalog.kinds import KINDS, kind_of
from rlx.catalog.listing import DATASET_TAGS, SPACE_TAGS, fetch_listing

__all__ = ["DATASET_TAGS", "KINDS", "SPACE_TAGS", "fetch_listing", "kind_of"]
