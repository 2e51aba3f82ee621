"""The data bucket (STORAGE_DIR): where each kind of file lives, and atomic writes."""

from rlx.store.files import (atomic_file, copy_atomic, read_json, remove_abandoned_temps, write_atomic,
                             write_json)
from rlx.store.layout import Store, repo_id_of_key

__all__ = ["Store", "atomic_file", "copy_atomic", "read_json", "remove_abandoned_temps", "repo_id_of_key",
           "write_atomic", "write_json"]
