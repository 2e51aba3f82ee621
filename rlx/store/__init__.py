"""The data bucket (STORAGE_DIR): where each kind of file lives, and atomic writes."""

from rlx.store.atomic_files import (atomic_file, copy_atomic, read_json, remove_abandoned_temps, write_atomic,
                             write_json)
from rlx.store.layout import Store, repo_id_of_key

__all__ = ["Store", "app_store", "atomic_file", "copy_atomic", "read_json", "remove_abandoned_temps", "repo_id_of_key",
           "write_atomic", "write_json"]


def app_store() -> Store:
    """The store of the app handling this request or job (each app is built with its own STORAGE_DIR)."""
    from flask import current_app

    return current_app.extensions["rlx.store"]
