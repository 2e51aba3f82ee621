"""The rows adapter: datasets whose tasks are rows (Verifiers, NeMo Gym, verl/SkyRL, MiMo, any table of prompts).

Rows are read through the dataset viewer when the source has one that serves the dataset, else straight from
the data files. A processor (rlx/adapters/rows/processors/) turns each row into a task; a task's ref is
`<split>/<i>`, or `<config>/<split>/<i>` when the dataset has several configs.
"""

from __future__ import annotations

from rlx.adapters.contract import Adapter, Index, TaskRow, TaskView
from rlx.adapters.indexes import load_pack
from rlx.adapters.rows import build, rollout_files, rowfiles, sections, titles
from rlx.adapters.rows.datafiles import is_data_file
from rlx.adapters.rows.processors import RowRef, RowTask, get_processor, render_row
from rlx.adapters.rows.readers import BadRow, DataFileError
from rlx.adapters.rows.tables import SplitRows, open_table
from rlx.sources.errors import SourceError, Unavailable

FORMAT_TAGS = {"verifiers", "nemo-gym", "verl", "skyrl"}  # a row format's own tag: sure without a look
ROW_TAGS = {"openenv", "rl-environment"}
PROBE_ENTRIES = 5000  # a confirming look lists at most this many entries


class RowsAdapter(Adapter):
    key = "rows"
    label = "Rows"
    cannot_run_why = ("they are rows of a table, and a run starts from a Harbor task folder (a task.toml naming "
                      "an image and a grader script); a task packed into a row is read, not run.")
    # 2: titles past an opening the rows share, the rest of each prompt kept for task search; 3: rollout files;
    # 4: a prompt found twice is no opening its rows share; 5: large withheld parquet columns left unread
    index_version = 5

    def score(self, record) -> float:
        if record.repo_type != "dataset" or "harbor" in record.tags:
            return 0.0  # a tagged Harbor dataset's packed tasks come through the Harbor adapter's build
        tags = set(record.tags)
        if FORMAT_TAGS & tags:
            return 0.9
        return 0.8 if ROW_TAGS & tags else 0.25  # below Harbor's untagged guess: task folders first

    def confirm(self, env) -> bool:
        """A data file anywhere in the repository (the viewer is not asked: a listing is cheaper)."""
        for n, entry in enumerate(env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                                       token=env.token)):
            if n >= PROBE_ENTRIES:
                return False
            if entry.path.endswith("task.toml"):
                return False
            if not entry.is_dir and is_data_file(entry.path):
                return True
        return False

    def kind_of_index(self, index: Index):
        """The processor's Kind (verifiers, nemo-gym, verl, rows); an index without one leaves it to the tags."""
        return index.summary.get("kind") or False

    def build_index(self, env, progress=None) -> Index:
        return build.build_index(env, self.key, self.index_version, progress)

    def overview(self, env, index: Index):
        return sections.overview(index)

    def task(self, env, index: Index, ref: str) -> TaskView | None:
        located = locate(index, ref)
        if located is None:
            return None
        row_ref, split = located
        processor = get_processor(index.summary.get("processor", "generic")) or get_processor("generic")
        table, split = _table_of(env, index, split)
        try:  # the large withheld columns the index left unread stay unread here too (columns.py)
            raw = table.row(split, row_ref.index, index.summary.get("unread_columns") or ())
        except Unavailable as exc:
            task = RowTask(title=f"Row {row_ref.index}", error=f"{exc} Try again in a minute.")
        except (BadRow, DataFileError, SourceError) as exc:
            task = RowTask(title=f"Row {row_ref.index}", error=str(exc))
        else:
            task = _titled(index, render_row(processor, raw, row_ref, index.summary.get("hints")), row_ref)
        return sections.task_view(ref, task)

    def rollout_files(self, index: Index) -> list[dict]:
        return index.summary.get("rollouts") or []

    def rollout_trace(self, env, index: Index, n: int, i: int):
        return rollout_files.trace_view(env, index, n, i, task_row=lambda ref: _raw_row(env, index, ref))

    def list_folder(self, env, index: Index, ref: str, path: str):
        return rowfiles.list_folder(env, index, locate(index, ref), path)

    def read_file(self, env, index: Index, ref: str, path: str):
        return rowfiles.read_file(env, index, locate(index, ref), path)

    def has_task(self, env, index: Index, ref: str) -> bool:
        return locate(index, ref) is not None

    def neighbours(self, env, index: Index, ref: str):
        located = locate(index, ref)
        if located is None:
            return super().neighbours(env, index, ref)
        row_ref, split = located
        make = lambda i: str(RowRef(row_ref.split, i, row_ref.config))  # noqa: E731
        prev_ref = make(row_ref.index - 1) if row_ref.index > 0 else None
        next_ref = make(row_ref.index + 1) if row_ref.index + 1 < split.rows else None
        return prev_ref, next_ref, row_ref.index + 1, split.rows

    def search_parts(self, index: Index) -> list[tuple[str, str]]:
        """Through the dataset viewer, every row of a split is searchable (files are searched as listed)."""
        if index.summary.get("origin") != "viewer":
            return []
        several = index.summary.get("several_configs")
        parts = []
        for split in index.summary.get("splits", [])[:100]:
            part = f"{split['config']}/{split['split']}" if several else split["split"]
            parts.append((part, f"{part} ({split['rows']:,} rows)"))
        return parts

    def search_part(self, env, index: Index, part: str, q: str, offset: int, length: int):
        located = locate(index, f"{part}/0")
        viewer = getattr(env.source, "viewer", None)
        if located is None or viewer is None or index.summary.get("origin") != "viewer":
            return None
        row_ref, split = located
        page = viewer.search(env.id, split.config, split.split, q, offset, length, token=env.token)
        processor = get_processor(index.summary.get("processor", "generic")) or get_processor("generic")
        rows = []
        for item in (page.get("rows") or [])[:length]:
            i = int(item.get("row_idx", 0))
            ref = RowRef(row_ref.split, i, row_ref.config)
            task = _titled(index, render_row(processor, item.get("row"), ref, index.summary.get("hints")), ref)
            rows.append(TaskRow(ref=str(ref), title=task.title, brief=task.brief, facets=task.facets,
                                error=task.error))
        return rows, int(page.get("num_rows_total") or 0)

    def random_ref(self, env, index: Index, near: str | None, pick) -> str | None:
        located = locate(index, near) if near else None
        splits = [located[1]] if located else [SplitRows.from_json(s) for s in index.summary.get("splits", [])]
        splits = [s for s in splits if s.rows > 0]
        if not splits:
            return None
        split = splits[pick(len(splits))]
        config = split.config if index.summary.get("several_configs") else None
        return str(RowRef(split.split, pick(split.rows), config))


def _titled(index: Index, task: RowTask, ref: RowRef) -> RowTask:
    """The task titled as the index titled it: past the opening its split's rows share."""
    known = (index.summary.get("openings") or {}).get(titles.split_key(ref))
    if known and not task.error:
        titles.retitle(task, titles.agent_text(task.sections), known)
    return task


def locate(index: Index, ref: str):
    """(RowRef, its split) when `ref` names a row that exists in this index's splits, else None."""
    row_ref = RowRef.parse(ref or "")
    if row_ref is None:
        return None
    several = index.summary.get("several_configs")
    if bool(row_ref.config) != bool(several):
        return None
    for data in index.summary.get("splits", []):
        split = SplitRows.from_json(data)
        if split.split == row_ref.split and (not several or split.config == row_ref.config):
            return (row_ref, split) if row_ref.index < split.rows else None
    return None


def _table_of(env, index: Index, split: SplitRows):
    """The dataset's table as indexed (its pack when there is one) and `split` as that table has it."""
    pack = load_pack(env.store, env.id) or {}
    table = open_table(env, pack.get("origin", index.summary.get("origin", "files")),
                       [SplitRows.from_json(s) for s in pack.get("splits", index.summary.get("splits", []))])
    return table, next((s for s in table.splits() if (s.config, s.split) == (split.config, split.split)), split)


def _raw_row(env, index: Index, ref: str):
    """A task's row as the file holds it (answers and all: for masking them elsewhere), or None."""
    located = locate(index, ref)
    if located is None:
        return None
    table, split = _table_of(env, index, located[1])
    try:
        return table.row(split, located[0].index)
    except (BadRow, DataFileError, SourceError):
        return None
