"""Which parquet columns a rows dataset leaves unread, from the files' footers alone (no cell is decoded).

pyarrow decodes a whole column chunk of a row group to hand back any one row of it: for a SWE-bench-shaped file
(1,000 rows of 100 KB gold patches in a group) that is about 127 MB of text and half a gigabyte of memory for a
task page, or for the indexer's first rows. A withheld column is never shown, so when its cells are large it is
not read at all: the row carries its name with no value (None), and the processor withholds it by name, with its
reason, as before. Given up: masking that column's values where they stand among the row's labels. A plain label
is one short line, so only a short piece nested inside such a large cell (a JSON field, say) could have been
masked there.
"""

from __future__ import annotations

from collections.abc import Iterable

from rlx.adapters.rows import readers
from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.readers import DataFileError
from rlx.sources.errors import SourceError

UNREAD_CELL_BYTES = 4096  # a withheld column whose cells average more than this (in any row group) is not read
SAMPLE_GROUP_BYTES = 32 * 1024 * 1024  # the sample that picks a processor decodes at most this of a row group
MAX_FILES_LOOKED_AT = 200


def parquet_paths(env, splits) -> list:
    """Local paths of the readable parquet files of these splits, in split order (a bounded number)."""
    out = []
    for split in splits:
        for data in split.files:
            if data.format == "parquet" and not data.error and data.rows:
                try:
                    out.append(local_file(env, data.path))
                except (DataFileError, SourceError, OSError):
                    continue
                if len(out) >= MAX_FILES_LOOKED_AT:
                    return out
    return out


def group_sizes(path, group: int) -> dict[str, int]:
    """Uncompressed bytes of each top-level column in one row group (nested columns: their leaves summed)."""
    meta = readers.parquet_metadata(path)
    names = readers.parquet_columns(path)
    sizes = dict.fromkeys(names, 0)
    chunks = meta.row_group(group)
    for j in range(chunks.num_columns):
        name = _top_level(chunks.column(j).path_in_schema, names)
        if name is not None:
            sizes[name] += chunks.column(j).total_uncompressed_size
    return sizes


def cell_sizes(path) -> dict[str, float]:
    """Each column's largest average cell, in bytes, over the file's row groups."""
    meta = readers.parquet_metadata(path)
    out: dict[str, float] = {}
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        if rows <= 0:
            continue
        for name, size in group_sizes(path, group).items():
            out[name] = max(out.get(name, 0.0), size / rows)
    return out


def sample_skip(env, splits) -> list[str]:
    """Columns left out of the sample that picks a processor: the largest of the first file's first row group,
    only while that group decodes to more than SAMPLE_GROUP_BYTES (a table of ordinary rows is sampled whole)."""
    paths = parquet_paths(env, splits[:1])
    try:
        sizes = group_sizes(paths[0], 0) if paths and readers.parquet_metadata(paths[0]).num_row_groups else {}
    except DataFileError:
        return []  # the file's own reading says why, where its rows are read
    total, skip = sum(sizes.values()), []
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        if total <= SAMPLE_GROUP_BYTES:
            break
        skip.append(name)
        total -= size
    return skip


def unread_columns(env, splits, shown: Iterable[str] | None) -> list[str]:
    """The withheld columns with large cells: never read for the index or a task page. `shown`: the fields the
    processor may show; None when that depends on the row's values, and then every column is read."""
    if shown is None:
        return []
    shown = set(shown)
    largest: dict[str, float] = {}
    for path in parquet_paths(env, splits):
        try:
            for name, size in cell_sizes(path).items():
                largest[name] = max(largest.get(name, 0.0), size)
        except DataFileError:
            continue
    return sorted(name for name, size in largest.items() if size > UNREAD_CELL_BYTES and name not in shown)


def _top_level(path: str, names: list[str]) -> str | None:
    """The top-level column a leaf's dotted path belongs to (the longest name that prefixes it)."""
    best = None
    for name in names:
        if (path == name or path.startswith(name + ".")) and (best is None or len(name) > len(best)):
            best = name
    return best
