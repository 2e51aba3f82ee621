"""A row's own files (a packed task folder), for the task page's file viewer: the row is read, its answers
withheld, and its processor lists a folder or reads a file of it. Rows without files answer None (no viewer)."""

from __future__ import annotations

from rlx.adapters.indexes import load_pack
from rlx.adapters.paths import safe_relpath
from rlx.adapters.rows.processors import get_processor
from rlx.adapters.rows.processors.base import Processor
from rlx.adapters.rows.readers import BadRow, DataFileError
from rlx.adapters.rows.tables import SplitRows, open_table
from rlx.sources.errors import SourceError


def list_folder(env, index, located, folder: str):
    processor, row = _clean_row(env, index, located)
    clean = safe_relpath(folder)
    if row is None or clean is None:
        return None
    return _answered(lambda: processor.list_folder(row, clean))


def read_file(env, index, located, path: str):
    processor, row = _clean_row(env, index, located)
    clean = safe_relpath(path)
    if row is None or not clean:
        return None
    return _answered(lambda: processor.read_file(row, clean))


def _answered(call):
    """What the processor answers; a row it cannot read has no files (its page already says why), never a 500."""
    try:
        return call()
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        return None


def _clean_row(env, index, located):
    processor = get_processor(index.summary.get("processor", "generic")) or get_processor("generic")
    if located is None or type(processor).list_folder is Processor.list_folder:
        return processor, None  # this format's rows hold no files: nothing to read
    row_ref, split = located
    pack = load_pack(env.store, env.id) or {}
    table = open_table(env, pack.get("origin", index.summary.get("origin", "files")),
                       [SplitRows.from_json(s) for s in pack.get("splits", index.summary.get("splits", []))])
    split = next((s for s in table.splits() if (s.config, s.split) == (split.config, split.split)), split)
    try:
        raw = table.row(split, row_ref.index)
    except (BadRow, DataFileError, SourceError):
        return processor, None
    if not isinstance(raw, dict):
        return processor, None
    return processor, processor.withhold(raw, index.summary.get("hints"))[0]
