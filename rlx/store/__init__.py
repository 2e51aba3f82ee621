"""The data bucket (STORAGE_DIR): where each kind of file lives, and atomic writes."""

from rlx.store.files import read_json, write_atomic, write_json
from rlx.store.layout import Store

__all__ = ["Store", "read_json", "write_atomic", "write_json"]
