"""The catalog: which repositories are environments, what kind each is, and in what order they trend."""

from rlx.catalog.kinds import KINDS, kind_of
from rlx.catalog.listing import (DATASET_TAGS, SPACE_TAGS, fetch_listing, is_space_app, read_listing_file,
                                 write_listing_file)

__all__ = ["DATASET_TAGS", "KINDS", "SPACE_TAGS", "fetch_listing", "is_space_app", "kind_of", "read_listing_file",
           "write_listing_file"]
