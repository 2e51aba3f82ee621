"""Harbor tasks packed into rows: a cell holds a task folder as tar, tar.gz or zip (raw bytes or base64 text).

The archive is unpacked in memory within bounds (rlx/adapters/archives.py), then read exactly as a folder
task is: Harbor's own reader (rlx/adapters/harbor/reader.py) withholds solution/ and the data beside the grader,
masks answers written into grader scripts and task.toml, and Harbor's sections draw the page. So a packed task
and the same task in a folder look alike, answers included. An archive that breaks a rule is refused in place of
its task, with the rule named; the other rows still read.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from dataclasses import replace
from functools import lru_cache

from rlx.adapters.archives import ArchiveRefused, holds_task_archive, unpack
from rlx.adapters.contract import FileView
from rlx.adapters.harbor import sections as harbor_sections
from rlx.adapters.harbor.layout import TASK_FILES
from rlx.adapters.harbor.reader import files_to_fetch, is_text_name, read_task
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask
from rlx.adapters.withhold import mask_task_text
from rlx.sources.base import FileEntry

# Columns that hold the packed folder in the datasets seen so far; any other column whose value is an archive
# is found by its leading bytes.
ARCHIVE_COLUMNS = ("task_archive", "archive", "task_tar", "task_tgz", "task_zip", "tarball", "task_binary",
                   "task_bytes", "tar", "tgz", "zip", "bundle", "files")
NAME_COLUMNS = ("task_id", "task_name", "name", "id", "instance_id")
TEXT_MAX_BYTES = 512 * 1024  # as for folder tasks: a larger file is listed, not shown
HEAD_BYTES = 2048  # of a cell, enough to see a tar header through gzip


class PackedHarborProcessor(Processor):
    key = "packed-harbor"
    label = "Harbor (packed)"
    kind = "harbor"

    def claim(self, columns, sample) -> float:
        """Sure when a sampled cell's leading bytes are an archive; likelier than generic on a column name alone,
        so a dataset whose first rows are all refused archives still reads as packed tasks (and says why)."""
        for row in sample[:5]:
            if _archive_column(row, by_content_only=True):
                return 0.95
        return 0.3 if any(name in ARCHIVE_COLUMNS for name in columns) else 0.0

    label_fields = NAME_COLUMNS + ("source", "split", "difficulty", "category", "tags")

    def withhold(self, row, hints=None):
        """The archive column is kept whole (Harbor's reader withholds inside it: solution/, the data beside the
        grader, answers in its scripts); of the other fields only plain labels are shown."""
        column = _archive_column(row)
        rest = {k: v for k, v in row.items() if k != column}
        clean, withheld = super().withhold(rest, hints)
        if column is not None:
            clean[column] = row[column]
        return clean, withheld

    def to_task(self, row, ref, withheld) -> RowTask:
        column = _archive_column(row)
        if column is None:
            raise RowProblem(f"Row {ref} has no column holding a packed task folder.")
        harbor_row, entry, texts = not_runnable_here(*read_packed(row[column], column))
        view = harbor_sections.task_view(harbor_row, entry, texts)
        sections = [s for s in view.sections if s.id != "problem"]
        name = next((c.as_text(row[n]) for n in NAME_COLUMNS if row.get(n) not in (None, "")), None)
        title = harbor_row.title if harbor_row.title not in ("task", entry.get("top")) else (name or harbor_row.title)
        others = c.leftovers(row, {column}, title=None)
        if others is not None:
            sections.append(c.section("row", "The row's other fields", [others]))
        return RowTask(title=title, brief=harbor_row.brief, facets=dict(harbor_row.facets),
                       sections=sections, withheld=list(view.withheld), facts=dict(view.facts),
                       error=harbor_row.error and f"The packed task (column `{column}`): {harbor_row.error}")

    def list_folder(self, row, folder: str):
        column = _archive_column(row)
        if column is None:
            return None
        try:
            _, entry, _ = read_packed(row[column], column)
        except RowProblem:
            return None
        known = {p: (p, t, s, w) for p, t, s, w in entry["files"]}
        if folder and known.get(folder, (None, None))[1] != "directory":
            return None
        children = [e for p, e in known.items() if posixpath.dirname(p) == folder]
        return [{"path": p, "type": t, "size": s, "task": None, "withheld": w}  # a packed task nests none
                for p, t, s, w in sorted(children, key=lambda e: (e[1] != "directory", e[0]))]

    def read_file(self, row, path: str):
        column = _archive_column(row)
        if column is None:
            return None
        try:
            _, entry, texts = read_packed(row[column], column)
        except RowProblem:
            return None
        listed = {p: (t, s, w) for p, t, s, w in entry["files"]}
        if path not in listed or listed[path][0] == "directory":
            return None
        _, size, reason = listed[path]
        if reason:
            return FileView(path=path, withheld=reason, size=size)
        if path in entry["texts"]:
            return FileView(path=path, text=texts[entry["texts"][path]], size=size)
        data = _member(row[column], entry.get("top"), path)
        if data is None or size > TEXT_MAX_BYTES or not _is_text(path, data):
            return FileView(path=path, binary=True, size=size, truncated=size > TEXT_MAX_BYTES)
        text = mask_task_text(path, data.decode("utf-8", errors="replace"), entry.get("_answer_values") or [])
        return FileView(path=path, text=text, size=size)


# Runs start from a task folder in the store; a folder packed in a table's cell is read, never unpacked for a run.
# So every packed task says it cannot run, with this reason, on its card, its page and the dataset's page alike.
PACKED_WHY = "it is packed in a table's cell, and a run starts from a task folder."


def not_runnable_here(harbor_row, entry, texts):
    """The task as Harbor's reader saw it, less its claim to run here (copies: what read_packed keeps is shared)."""
    runtime = {**(entry.get("runtime") or {}), "runs_here": False, "caveats": [], "why_not": [PACKED_WHY]}
    row = replace(harbor_row, facets={**harbor_row.facets, "runs_here": "no"})
    return row, {**entry, "runtime": runtime}, texts


def read_packed(cell, column: str):
    """(Harbor's index row, its pack entry, the texts the entry names) for the task folder packed in `cell`.

    A task page asks for one task several times (the page, each folder of its file tree, the file shown), so
    the last few are remembered by their cell; the results are only ever read."""
    if isinstance(cell, (bytes, str)):
        return _read_remembered(cell, column)
    return _read(cell, column)


@lru_cache(maxsize=4)  # at most 64 MB unpacked each: a few, not many
def _read_remembered(cell, column: str):
    return _read(cell, column)


def _read(cell, column: str):
    try:
        unpacked = unpack(cell)
    except ArchiveRefused as exc:
        raise RowProblem(f"The packed task in column `{column}` was refused ({exc.rule}): {exc}") from None
    files, folders, top = _strip_top(unpacked.files, unpacked.folders)
    entries = [FileEntry(path=p, type="directory") for p in sorted(folders)]
    entries += [FileEntry(path=p, type="file", size=len(data)) for p, data in sorted(files.items())]
    texts = {}  # exactly what a folder task's build fetches (its solution too: read for values, never shown)
    for path in files_to_fetch(entries, walked=False):
        data = files[path]
        if len(data) <= TEXT_MAX_BYTES and _is_text(path, data):
            texts[path] = data.decode("utf-8", errors="replace")
    harbor_row, entry = read_task("", entries, texts)
    entry["top"] = top
    masked = entry["texts"]  # what the reader kept, answers masked, by path
    entry["texts"] = {path: path for path in masked}  # ...so the masked texts are their own blob table
    return harbor_row, entry, masked


def _member(cell, top: str | None, path: str) -> bytes | None:
    """One member's bytes, unpacked again (a file the page did not need, so not remembered)."""
    try:
        return unpack(cell).files.get(f"{top}/{path}" if top else path)
    except ArchiveRefused:
        return None


def _strip_top(files: dict[str, bytes], folders: set[str]):
    """A folder packed with its own name around it (`my-task/task.toml`) reads as that folder."""
    tops = {p.split("/", 1)[0] for p in files} | {f.split("/", 1)[0] for f in folders}
    if any(name in files for name in TASK_FILES) or len(tops) != 1:
        return files, folders, None
    top = next(iter(tops))
    if top in files:
        return files, folders, None
    cut = len(top) + 1
    return ({p[cut:]: d for p, d in files.items()},
            {f[cut:] for f in folders if f != top}, top)


def _is_text(path: str, data: bytes) -> bool:
    if b"\x00" in data[:8192]:
        return False
    if is_text_name(path):
        return True
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _archive_column(row: dict, by_content_only: bool = False) -> str | None:
    for name, value in row.items():
        if _looks_packed(value):
            return name
    if by_content_only:
        return None
    return next((name for name in ARCHIVE_COLUMNS if name in row), None)


def _looks_packed(value) -> bool:
    if isinstance(value, dict) and isinstance(value.get("bytes"), (bytes, bytearray)):
        value = value["bytes"]
    if isinstance(value, (bytes, bytearray)):
        return holds_task_archive(bytes(value[:HEAD_BYTES]))
    if isinstance(value, str) and len(value) >= 200 and value[:1] not in "{[":
        head = "".join(value[:HEAD_BYTES * 4 // 3].split())
        head = head[:len(head) // 4 * 4]
        try:
            return holds_task_archive(base64.b64decode(head, validate=True))
        except (binascii.Error, ValueError):
            return False
    return False
