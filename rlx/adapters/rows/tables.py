"""A dataset's rows, wherever they are read from: the dataset viewer, or the data files themselves.

Both tables answer the same three calls — `splits()` (each with its row count), `head(split, n)` and
`row(split, i)`, the last two optionally leaving some parquet columns unread (`skip`, columns.py) — so the
index builder and the task page do not care which one they hold. A row that cannot be read is a `BadRow` (one
task's message); a file that cannot be read is recorded on its split and skipped; a viewer that fails raises
`Unavailable`, which the caller shows in place of the task.
"""

from __future__ import annotations

import bisect
from dataclasses import asdict, dataclass, field

from rlx.adapters.env import Env
from rlx.adapters.rollouts.formats import FORMATS, detect, named_trace_format
from rlx.adapters.rows import readers, regroup
from rlx.adapters.rows.datafiles import data_format, find_splits, rollout_files
from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.readers import BadRow, DataFileError
from rlx.sources.errors import SourceError

MAX_TREE_ENTRIES = 20_000
MAX_ROLLOUT_FILES = 50  # rollout files of one dataset listed on its page


@dataclass
class DataFile:
    path: str
    format: str
    rows: int = 0
    marks: list[int] = field(default_factory=list)
    error: str | None = None
    copy: str = ""  # parquet: its copy in small row groups, under the rows cache (regroup.py); "" when none


@dataclass
class SplitRows:
    config: str
    split: str
    rows: int
    files: list[DataFile] = field(default_factory=list)  # empty for the viewer
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "SplitRows":
        return cls(data["config"], data["split"], data["rows"], [DataFile(**f) for f in data.get("files", [])],
                   list(data.get("problems", [])))


class FileTable:
    """Rows read from the dataset's own files (a folder source, or a dataset the viewer does not serve)."""

    origin = "files"

    def __init__(self, env: Env, splits: list[SplitRows]):
        self.env, self._splits = env, splits
        self.rollouts: list[dict] = []  # files of rollouts found beside the tasks: [{path, format, why}]

    @classmethod
    def survey(cls, env: Env, on_file=None) -> "FileTable":
        """Find the data files, and count each one's rows (one pass per file, marks kept for random access)."""
        entries = []
        for entry in env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                          token=env.token):
            entries.append(entry)
            if len(entries) >= MAX_TREE_ENTRIES:
                break
        named = rollout_files(entries)
        rollouts = [{"path": p, "format": _named_format(env, p), "why": why} for p, why in named.items()]
        splits = []
        for found in find_splits(entries, env.record.card):
            split = SplitRows(found.config, found.name, 0)
            for path in found.files:
                data = DataFile(path, data_format(path) or "")
                fmt = _rollout_format(env, data)
                if fmt:  # rollouts, eval results or a session: runs of the tasks, never tasks
                    rollouts.append({"path": path, "format": fmt, "why": f"{FORMATS[fmt]}, not tasks"})
                    continue
                try:
                    counted = readers.survey(local_file(env, path), data.format)
                    data.rows, data.marks = counted.rows, counted.marks
                except (DataFileError, SourceError, OSError) as exc:
                    data.error = str(exc)
                    split.problems.append(str(exc))
                split.files.append(data)
                split.rows += data.rows
                if on_file:
                    on_file(path)
            if split.files:
                splits.append(split)
        unread = [r for r in rollouts if not r["format"]]
        if splits and unread:  # said on the dataset's page, under Problems, with why
            splits[0].problems.extend(f"{r['path']} is not listed: {r['why']}." for r in unread[:20])
        table = cls(env, splits)
        table.rollouts = rollouts[:MAX_ROLLOUT_FILES]
        return table

    def splits(self) -> list[SplitRows]:
        return self._splits

    def head(self, split: SplitRows, n: int, skip=()) -> list:
        out: list = []
        for data in split.files:
            if len(out) >= n:
                break
            if data.error or not data.rows:
                continue
            out.extend(readers.read_head(local_file(self.env, data.path), data.format, n - len(out), skip))
        return out

    def row(self, split: SplitRows, i: int, skip=()):
        readable = [f for f in split.files if not f.error]
        starts, total = [], 0
        for data in readable:
            starts.append(total)
            total += data.rows
        if not 0 <= i < total:
            raise BadRow(f"{split.split} has no row {i}.")
        k = bisect.bisect_right(starts, i) - 1
        data = readable[k]
        copy = regroup.copy_path(self.env, data)  # the same rows in small row groups: one is cheap to reach
        try:
            if copy is not None:
                return readers.read_row(copy, data.format, None, i - starts[k], skip)
            return readers.read_row(local_file(self.env, data.path), data.format, data.marks, i - starts[k], skip)
        except BadRow as exc:
            raise BadRow(str(exc).replace(f"Row {i - starts[k]}", f"Row {i}", 1)) from None


# Names eval harnesses give their outputs (Verifiers' outputs/evals/.../results.jsonl, predictions, generations):
# files the viewer would serve as a split of tasks. Their first record tells.
_OUTPUT_STEMS = {"results", "outputs", "predictions", "preds", "generations", "completions", "samples", "evals"}
MAX_SNIFFED = 10
MAX_SNIFFED_BYTES = 64 * 2**20


def rollouts_in_tree(env: Env) -> list[str]:
    """Data files of rollouts (by name, or by their first record when named as outputs) that the viewer would
    read as tasks: when there are any, the files are read directly, so they are listed as runs instead."""
    entries = []
    for entry in env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision, token=env.token):
        entries.append(entry)
        if len(entries) >= MAX_TREE_ENTRIES:
            break
    found = [p for p in rollout_files(entries) if data_format(p)]
    candidates = [e for e in entries if not e.is_dir and data_format(e.path) in ("jsonl", "json")
                  and e.size <= MAX_SNIFFED_BYTES and e.path not in found
                  and (e.path.rsplit("/", 1)[-1].split(".", 1)[0].lower() in _OUTPUT_STEMS
                       or "outputs/" in e.path.lower())]
    for entry in candidates[:MAX_SNIFFED]:
        if detect(entry.path, _first_record(env, entry.path, data_format(entry.path) or "")):
            found.append(entry.path)
    return found


def _first_record(env: Env, path: str, fmt: str):
    """The first record of a JSON Lines or JSON file, or None (parquet and CSV hold no rollout formats we read)."""
    if fmt not in ("jsonl", "json"):
        return None
    try:
        head = readers.read_head(local_file(env, path), fmt, 1)
    except (DataFileError, SourceError, OSError):
        return None
    return head[0] if head else None


def _rollout_format(env: Env, data: DataFile) -> str | None:
    return detect(data.path, _first_record(env, data.path, data.format))


def _named_format(env: Env, path: str) -> str | None:
    """A file named as rollouts: its format by its content, when it is one this explorer draws as traces."""
    if path.endswith(".traj"):
        return detect(path, None)
    first = _first_record(env, path, data_format(path) or "")
    return detect(path, first) or named_trace_format(first)


class ViewerTable:
    """Rows read through the Hub's dataset viewer, one page (at most 100 rows) at a time."""

    origin = "viewer"

    def __init__(self, env: Env, viewer, splits: list[SplitRows]):
        self.env, self.viewer, self._splits = env, viewer, splits
        self.rollouts: list[dict] = []  # the viewer's splits are read as tasks: its files are not looked into

    @classmethod
    def survey(cls, env: Env, viewer) -> "ViewerTable":
        splits = []
        infos: dict[str, dict] = {}
        for item in viewer.splits(env.id, token=env.token)[:200]:
            config, name = str(item.get("config")), str(item.get("split"))
            if config not in infos:
                infos[config] = viewer.info(env.id, config, token=env.token)
            counts = (infos[config].get("splits") or {}).get(name) or {}
            rows = counts.get("num_examples")
            if not isinstance(rows, int):
                rows = int(viewer.rows(env.id, config, name, 0, 1, token=env.token).get("num_rows_total") or 0)
            splits.append(SplitRows(config, name, rows))
        return cls(env, viewer, splits)

    def splits(self) -> list[SplitRows]:
        return self._splits

    def head(self, split: SplitRows, n: int, skip=()) -> list:  # the viewer sends whole rows: skip is moot
        out: list = []
        while len(out) < min(n, split.rows):
            page = self.viewer.rows(self.env.id, split.config, split.split, len(out), min(100, n - len(out)),
                                    token=self.env.token)
            got = [item.get("row") for item in page.get("rows") or []]
            if not got:
                break
            out.extend(_checked(row, len(out) + k) for k, row in enumerate(got))
        return out

    def row(self, split: SplitRows, i: int, skip=()):
        if not 0 <= i < split.rows:
            raise BadRow(f"{split.split} has no row {i}.")
        page = self.viewer.rows(self.env.id, split.config, split.split, i, 1, token=self.env.token)
        rows = page.get("rows") or []
        if not rows:
            raise BadRow(f"The dataset viewer has no row {i} in {split.split}.")
        return readers.check_cells(rows[0].get("row"), i)


def _checked(row, i):
    try:
        return readers.check_cells(row, i)
    except BadRow as exc:
        return exc


def open_table(env: Env, origin: str, splits: list[SplitRows]):
    """The table an index was built from, for reading single rows on a task page."""
    viewer = getattr(env.source, "viewer", None)
    if origin == "viewer" and viewer is not None:
        return ViewerTable(env, viewer, splits)
    return FileTable(env, splits)
