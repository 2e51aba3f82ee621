"""Reading rows straight from data files: JSON Lines, JSON, parquet and CSV (gzip is undone before, in local.py).

Each format answers three calls on a local file: `survey` (how many rows, plus marks that make one row cheap to
reach), `read_row` (row i) and `read_head` (the first n rows). Parquet is read one row group at a time and JSON
Lines from a byte offset kept every STRIDE rows, so a task page never reads a whole file; JSON and CSV have no
such structure and are read whole, within MAX_WHOLE_FILE, and kept parsed for a while. Parquet rows can leave
columns unread (`skip`, chosen in columns.py): a skipped column is in the row with the value None.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

STRIDE = 256  # JSON Lines: a byte offset is kept for every STRIDE-th row
MAX_CELL_BYTES = 8 * 1024 * 1024  # a row with a larger cell is shown as a message, not read into a page
MAX_WHOLE_FILE = 64 * 1024 * 1024  # JSON and CSV files are parsed whole, so they are capped
_LIST_KEYS = ("data", "rows", "examples", "instances", "tasks", "items", "records", "train")


class DataFileError(Exception):
    """A whole file cannot be read (truncated, not the format its name says); the sentence says why."""


class BadRow(Exception):
    """One row cannot be read (malformed, too large); the rest of the file still reads."""


@dataclass
class Survey:
    rows: int
    marks: list[int] = field(default_factory=list)  # parquet: first row of each row group; jsonl: byte offsets


def survey(path: Path, fmt: str) -> Survey:
    try:
        if fmt == "parquet":
            meta = _parquet(path).metadata
            return Survey(meta.num_rows, _group_starts(meta))
        if fmt == "jsonl":
            return _survey_lines(path)
        return Survey(len(_whole(path, fmt)))
    except (pa.ArrowException, OSError, ValueError, csv.Error) as exc:
        raise DataFileError(_file_problem(path, fmt, exc)) from None


def read_row(path: Path, fmt: str, marks: list[int] | None, i: int, skip: Collection[str] = ()):
    """Row `i` of the file (0-based), or BadRow / DataFileError with a sentence. `skip`: parquet columns not read;
    `marks` None: a parquet file's own row groups are looked up in its footer."""
    try:
        if fmt == "parquet":
            return _parquet_row(path, marks, i, skip)
        if fmt == "jsonl":
            return _line_row(path, marks, i)
        rows = _whole(path, fmt)
        if not 0 <= i < len(rows):
            raise BadRow(f"{path.name} has no row {i}.")
        return check_cells(rows[i], i)
    except (pa.ArrowException, OSError, csv.Error) as exc:
        raise DataFileError(_file_problem(path, fmt, exc)) from None
    except (ValueError, OverflowError) as exc:  # a value Python cannot hold (a date past year 9999, say)
        raise BadRow(f"Row {i} holds a value that cannot be read ({str(exc)[:160]}).") from None


def read_head(path: Path, fmt: str, n: int, skip: Collection[str] = ()) -> list:
    """The first `n` rows; a row that cannot be read comes back as its BadRow, in its place. `skip`: parquet
    columns not read."""
    out: list = []
    try:
        if fmt == "parquet":
            parquet = _parquet(path)
            names, read = _read_columns(parquet, skip)
            if read == []:  # every column skipped: rows of names, no cell read
                return [dict.fromkeys(names) for _ in range(min(n, parquet.metadata.num_rows))]
            for batch in parquet.iter_batches(batch_size=max(1, min(n, 256)), columns=read):
                for row in _with_names(batch.to_pylist(), names):
                    if len(out) >= n:
                        return out
                    out.append(_checked(row, len(out)))
            return out
        if fmt == "jsonl":
            for i, line in enumerate(_lines(path, 0)):
                if i >= n:
                    break
                out.append(_parse_line(line, i))
            return out
        return [_checked(row, i) for i, row in enumerate(_whole(path, fmt)[:n])]
    except (pa.ArrowException, OSError, ValueError, csv.Error) as exc:
        raise DataFileError(_file_problem(path, fmt, exc)) from None


def _checked(row, i: int):
    try:
        return check_cells(row, i)
    except BadRow as exc:
        return exc


def check_cells(row, i: int):
    """`row` itself, or BadRow when one of its cells is larger than a page may show."""
    if isinstance(row, dict):
        for key, value in row.items():
            size = _size(value)
            if size > MAX_CELL_BYTES:
                raise BadRow(f"Row {i} has a cell ({key}) of {size / 1e6:.1f} MB, more than the "
                             f"{MAX_CELL_BYTES // (1024 * 1024)} MB this explorer reads into a page.")
    return row


def _size(value, depth: int = 0) -> int:
    if isinstance(value, (str, bytes)):
        return len(value)
    if depth < 4 and isinstance(value, dict):
        return sum(_size(v, depth + 1) for v in value.values())
    if depth < 4 and isinstance(value, list):
        return sum(_size(v, depth + 1) for v in value[:10_000])
    return 0


# --- parquet ---------------------------------------------------------------------------------------------------

_parquet_files: OrderedDict = OrderedDict()
_lock = threading.Lock()


def _parquet(path: Path) -> pq.ParquetFile:
    """An open ParquetFile, kept per (path, mtime): its footer is read once, not on every task page."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _parquet_files:
            _parquet_files.move_to_end(key)
            return _parquet_files[key]
    opened = pq.ParquetFile(path, memory_map=True)
    with _lock:
        _parquet_files[key] = opened
        while len(_parquet_files) > 32:
            _parquet_files.popitem(last=False)
    return opened


def parquet_metadata(path: Path) -> pq.FileMetaData:
    """The file's footer (row groups, column chunks and their sizes), read once per (path, mtime)."""
    try:
        return _parquet(path).metadata
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataFileError(_file_problem(path, "parquet", exc)) from None


def parquet_columns(path: Path) -> list[str]:
    """The file's top-level column names, in order."""
    try:
        return list(_parquet(path).schema_arrow.names)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataFileError(_file_problem(path, "parquet", exc)) from None


def _group_starts(meta: pq.FileMetaData) -> list[int]:
    """The first row of each row group."""
    starts, total = [], 0
    for group in range(meta.num_row_groups):
        starts.append(total)
        total += meta.row_group(group).num_rows
    return starts


def _read_columns(parquet: pq.ParquetFile, skip: Collection[str]) -> tuple[list[str], list[str] | None]:
    """(every column name, the ones to read; None: all of them)."""
    names = list(parquet.schema_arrow.names)
    if not skip or not set(skip) & set(names):
        return names, None
    return names, [name for name in names if name not in skip]


def _with_names(rows: list[dict], names: list[str]) -> list[dict]:
    """Rows as read, each with every column of the file in order: the unread ones hold None."""
    if not rows or len(rows[0]) == len(names):
        return rows
    return [{name: row.get(name) for name in names} for row in rows]


def _parquet_row(path: Path, starts: list[int] | None, i: int, skip: Collection[str] = ()):
    parquet = _parquet(path)
    if starts is None:
        starts = _group_starts(parquet.metadata)
    group = max((g for g, start in enumerate(starts) if start <= i), default=None)
    if group is None or i >= parquet.metadata.num_rows:
        raise BadRow(f"{path.name} has no row {i}.")
    names, read = _read_columns(parquet, skip)
    if read == []:
        return dict.fromkeys(names)
    table = parquet.read_row_group(group, columns=read).slice(i - starts[group], 1)
    sizes = {name: _arrow_size(table.column(name)) for name in table.column_names}
    big = [name for name, size in sizes.items() if size > MAX_CELL_BYTES]
    if big:
        raise BadRow(f"Row {i} has a cell ({big[0]}) of {sizes[big[0]] / 1e6:.1f} MB, more than the "
                     f"{MAX_CELL_BYTES // (1024 * 1024)} MB this explorer reads into a page.")
    return _with_names(table.to_pylist(), names)[0]


def _arrow_size(column: pa.ChunkedArray) -> int:
    """Bytes of one sliced cell's text or binary (a slice's nbytes would count its whole buffer)."""
    if pa.types.is_string(column.type) or pa.types.is_binary(column.type) \
            or pa.types.is_large_string(column.type) or pa.types.is_large_binary(column.type):
        value = column[0].as_py()
        return len(value) if value is not None else 0
    return 0


# --- JSON Lines ------------------------------------------------------------------------------------------------

def _survey_lines(path: Path) -> Survey:
    marks, count, offset = [], 0, 0
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                if count % STRIDE == 0:
                    marks.append(offset)
                count += 1
            offset += len(line)
    return Survey(count, marks)


def _lines(path: Path, offset: int):
    """Non-blank lines from a byte offset on; a line longer than a page may show comes back as None."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        while True:
            line = fh.readline(MAX_CELL_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_CELL_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the long line
                    line = fh.readline(1 << 20)
                yield None
                continue
            if line.strip():
                yield line


def _line_row(path: Path, marks: list[int], i: int):
    block = i // STRIDE
    if i < 0 or block >= len(marks):
        raise BadRow(f"{path.name} has no row {i}.")
    for n, line in enumerate(_lines(path, marks[block]), start=block * STRIDE):
        if n == i:
            return _parse_line(line, i, raise_it=True)
    raise BadRow(f"{path.name} has no row {i}.")


def _parse_line(line: bytes | None, i: int, raise_it: bool = False):
    try:
        if line is None:
            raise BadRow(f"Row {i} is a line of more than {MAX_CELL_BYTES // (1024 * 1024)} MB, more than this "
                         f"explorer reads into a page.")
        try:
            return check_cells(json.loads(line), i)
        except (ValueError, RecursionError) as exc:
            raise BadRow(f"Row {i} is not valid JSON ({str(exc)[:120]}).") from None
    except BadRow as exc:
        if raise_it:
            raise
        return exc


# --- whole files: JSON and CSV ---------------------------------------------------------------------------------

_whole_files: OrderedDict = OrderedDict()


def _whole(path: Path, fmt: str) -> list:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _whole_files:
            _whole_files.move_to_end(key)
            return _whole_files[key]
    if stat.st_size > MAX_WHOLE_FILE:
        raise DataFileError(f"{path.name} is {stat.st_size / 1e6:.0f} MB; {fmt.upper()} files are read whole, "
                            f"so only files up to {MAX_WHOLE_FILE // (1024 * 1024)} MB are read.")
    rows = _read_json(path) if fmt == "json" else _archive(path) if fmt == "archive" else _read_csv(path)
    with _lock:
        _whole_files[key] = rows
        while len(_whole_files) > 4:
            _whole_files.popitem(last=False)
    return rows


def _read_json(path: Path) -> list:
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as exc:
        raise DataFileError(f"{path.name} is not valid JSON ({str(exc)[:120]}).") from None
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
        lists = [v for v in data.values() if isinstance(v, list)]
        if lists and all(len(v) == len(lists[0]) for v in lists) and len(lists) == len(data):
            names = list(data)  # columns: {"a": [...], "b": [...]}
            return [dict(zip(names, values)) for values in zip(*data.values())]
    raise DataFileError(f"{path.name} holds no list of rows (expected an array, or an object with one).")


def _archive(path: Path) -> list:
    from rlx.adapters.rows.archive_rows import ArchiveUnreadable, archive_rows

    try:
        return archive_rows(path)
    except ArchiveUnreadable as exc:
        raise DataFileError(str(exc)) from None


def _read_csv(path: Path) -> list:
    csv.field_size_limit(MAX_WHOLE_FILE)
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    return list(csv.DictReader(io.StringIO(text)))


def _file_problem(path: Path, fmt: str, exc: Exception) -> str:
    detail = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
    if fmt == "parquet":
        return f"{path.name} is not a readable parquet file (truncated or damaged?): {detail}."
    return f"{path.name} could not be read as {fmt.upper()}: {detail}."
