"""Copies of parquet files whose row groups are too large for a task page, in small row groups.

pyarrow hands back one row only by decoding its whole row group (every column read, every row of it), so a task
page costs what its row group costs: a few milliseconds for a thousand short prompts, tens for a thousand 5 KB
issues. When a row group's read columns (columns.py) decode to more than REGROUP_BYTES, the indexer writes a copy
of the file in row groups of about COPY_GROUP_BYTES, once per revision, into the store's rows cache; the columns
left unread are all null there, so the copy never holds a withheld large cell. A page reads the copy when it is
there and the file itself when it is not (the same rows, only slower).
"""

from __future__ import annotations

import hashlib
import logging

import pyarrow as pa
import pyarrow.parquet as pq

from rlx.adapters.paths import safe_relpath
from rlx.adapters.rows import columns, readers
from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.readers import DataFileError
from rlx.sources.errors import SourceError
from rlx.store.atomic_files import atomic_file

log = logging.getLogger("rlx.rows")

REGROUP_BYTES = 2 * 1024 * 1024  # a row group whose read columns decode to more than this is copied
COPY_GROUP_BYTES = 256 * 1024  # the copy's row groups decode to about this
MAX_COPIED_BYTES = 2 * 1024 ** 3  # a file whose read columns are larger than this is read as it is


def regroup_files(env, splits, skip) -> None:
    """Write the small-group copy of each parquet file that needs one and name it on its DataFile (`copy`)."""
    for split in splits:
        for data in split.files:
            if data.format != "parquet" or data.error or not data.rows:
                continue
            try:
                data.copy = _regrouped(env, data.path, skip) or ""
            except (DataFileError, SourceError, OSError, pa.ArrowException) as exc:
                log.warning("no small-group copy of %s in %s: %s", data.path, env.id, exc)
                data.copy = ""  # its pages read the file itself


def copy_path(env, data):
    """The local path of a DataFile's small-group copy, or None when it has none (or it is gone)."""
    if not getattr(data, "copy", ""):
        return None
    rel = safe_relpath(data.copy)
    path = env.store.rows_cache_dir(env.id, env.revision) / rel if rel else None
    return path if path is not None and path.is_file() else None


def _regrouped(env, rel_path: str, skip) -> str | None:
    source = local_file(env, rel_path)
    meta = readers.parquet_metadata(source)
    names = readers.parquet_columns(source)
    read = [name for name in names if name not in set(skip)]
    per_group = [sum(size for name, size in columns.group_sizes(source, g).items() if name in read)
                 for g in range(meta.num_row_groups)]
    if not per_group or max(per_group) <= REGROUP_BYTES or sum(per_group) > MAX_COPIED_BYTES:
        return None
    # the skipped columns are part of the copy's identity: another choice of them is another copy
    tag = hashlib.sha1("\0".join(sorted(set(skip) & set(names))).encode()).hexdigest()[:12]
    rel = f"regrouped/{tag}/{safe_relpath(rel_path)}"
    target = env.store.rows_cache_dir(env.id, env.revision) / rel
    if not target.is_file():
        rows_per_group = max(1, int(COPY_GROUP_BYTES * max(1, meta.num_rows) / max(1, sum(per_group))))
        _write_copy(source, target, read, rows_per_group)
    return rel


def _write_copy(source, target, read: list[str], rows_per_group: int) -> None:
    """One row group of the source at a time (its read columns only), written in groups of `rows_per_group`."""
    parquet = pq.ParquetFile(source)
    schema = parquet.schema_arrow
    schema = pa.schema([field if field.name in read else field.with_nullable(True) for field in schema],
                       metadata=schema.metadata)
    with atomic_file(target) as out, pq.ParquetWriter(out, schema) as writer:
        for group in range(parquet.metadata.num_row_groups):
            table = parquet.read_row_group(group, columns=read)
            arrays = [table.column(field.name) if field.name in read else pa.nulls(table.num_rows, field.type)
                      for field in schema]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema), row_group_size=rows_per_group)
            del table, arrays
