"""Indexing a rows dataset: find its splits and count their rows, choose the processor, and index the first rows
of each split (titles, briefs, facets; answers withheld) for the task list and task search."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import save_index, save_pack
from rlx.adapters.manifest import read_manifest
from rlx.adapters.rows import columns, regroup, stats, titles
from rlx.adapters.rows.rollout_files import index_rollouts
from rlx.adapters.task_words import search_words
from rlx.adapters.rows.processors import RowRef, choose_processor, render_row
from rlx.adapters.rows.readers import BadRow, DataFileError
from rlx.adapters.rows.tables import MAX_ROLLOUT_FILES, FileTable, SplitRows, ViewerTable, rollouts_in_tree
from rlx.queue.progress import NullProgress
from rlx.sources.errors import SourceError

ROWS_INDEXED_PER_SPLIT = 1000  # the task list and task search hold this many rows of each split
VIEWER_ROWS_PER_SPLIT = 300  # fewer through the viewer: three pages of 100 per split
SEARCHED_PER_SPLIT = 200  # of those, the catalog's task search holds the first this many of each split
SAMPLE_ROWS = 20  # rows shown to the processors to claim the format
MAX_SPLITS = 50


def open_source_table(env, progress):
    """The viewer's table when the source has a viewer that serves this dataset, else the files'."""
    viewer = getattr(env.source, "viewer", None)
    if viewer is not None:
        try:  # a viewer failing at any step leaves the files, read directly
            valid = viewer.is_valid(env.id, token=env.token)
            served = valid.get("viewer") or valid.get("preview")
            runs = rollouts_in_tree(env) if served else []
            if served and not runs:
                return ViewerTable.survey(env, viewer), None
            note = (f"The dataset viewer would read {runs[0]} (runs, not tasks) as tasks; the files were read "
                    "directly." if runs else "The dataset viewer does not serve this dataset; its files were read "
                    "directly.")
        except SourceError as exc:
            note = f"The dataset viewer could not be used ({exc}); the files were read directly."
    else:
        note = None
    seen = [0]

    def on_file(path):
        seen[0] += 1
        progress.update("listing", seen[0], message=f"Counted the rows of {seen[0]:,} files")

    return FileTable.survey(env, on_file), note


def build_index(env, adapter_key: str, version: int, progress=None) -> Index:
    progress = progress or NullProgress()
    started = time.monotonic()
    _step(progress, "start", "listing", "Finding the data files and counting rows")
    table, note = open_source_table(env, progress)
    splits = table.splits()[:MAX_SPLITS]
    _step(progress, "finish", "listing", f"{len(splits)} split(s), {sum(s.rows for s in splits):,} rows")
    per_split = VIEWER_ROWS_PER_SPLIT if table.origin == "viewer" else ROWS_INDEXED_PER_SPLIT
    _step(progress, "start", "fetching", f"Reading the first rows of {len(splits)} split(s)")
    problems = [p for s in splits for p in s.problems] + ([note] if note else [])
    if table.origin == "files":  # the processor first, so the rows are read without its large withheld columns
        processor, score, unread = _choose_from_files(env, table, splits, per_split)
        heads = _heads(table, splits, per_split, unread, problems)
    else:  # the viewer sends whole rows: its first pages serve as the sample too
        heads, unread = _heads(table, splits, per_split, (), problems), []
        processor, score = _choose(env, [r for rows in heads.values() for r in rows if isinstance(r, dict)])
    traces_only = processor.key == "traces"
    if traces_only:  # recorded runs, not tasks: every file of them is listed as rollouts, none as a task
        table, splits, heads = _traces_as_rollouts(env, table, splits)
    surveyed = [r for rows in heads.values() for r in rows if isinstance(r, dict)]
    hints = processor.survey(list(dict.fromkeys(k for r in surveyed for k in r)), surveyed)
    _step(progress, "finish", "fetching", f"Read as {processor.label}")
    _step(progress, "start", "packing", "Indexing the rows")
    several_configs = len({s.config for s in splits}) > 1
    split_facet = len({s.split for s in splits}) > 1
    rows, cleaned, split_openings, task_texts = [], [], {}, []
    for split in splits:
        rendered = []
        for i, raw in enumerate(heads[_key(split)]):
            ref = RowRef(split.split, i, split.config if several_configs else None)
            task = None if isinstance(raw, BadRow) else render_row(processor, raw, ref, hints)
            rendered.append((raw, ref, task, titles.agent_text(task.sections) if task else ""))
            if isinstance(raw, dict) and len(cleaned) < 2000:
                cleaned.append(processor.withhold(raw, hints)[0])
        known = titles.openings([(task.title, text) for _, _, task, text in rendered if task and not task.error])
        if known:
            split_openings[titles.split_key(rendered[0][1])] = known
        for raw, ref, task, text in rendered:
            if task is not None:
                titles.retitle(task, text, known)
                task_texts.append((str(ref), text))
            rows.append(_task_row(raw, task, text, ref, split_facet))
    if table.origin == "files" and splits:  # task pages then read one small row group, not a large one
        regroup.regroup_files(env, splits, unread)
    column_stats = _column_stats(env, table, splits, processor, cleaned)
    rollouts = index_rollouts(env, table.rollouts, task_texts, splits)
    runs_only = traces_only or (not splits and bool(rollouts))  # a repository of runs (trials, logs), no task
    summary = {
        "kind": processor.kind, "processor": processor.key, "processor_label": processor.label,
        "claim": round(score, 3), "origin": table.origin, "rows_total": sum(s.rows for s in splits),
        "several_configs": several_configs, "splits": [s.as_json() for s in splits], "problems": problems[:50],
        "columns": column_stats, "openings": split_openings, "hints": hints,
        "rollouts": rollouts, "manifest": read_manifest(env), "traces_only": runs_only, "unread_columns": unread,
        "seconds": round(time.monotonic() - started, 2),
    }
    index = Index(env_id=env.id, adapter=adapter_key, revision=env.revision, version=version,
                  built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), complete=True, rows=rows,
                  summary=summary)
    save_pack(env.store, env.id, {"revision": env.revision, "version": version, "origin": table.origin,
                                  "splits": [s.as_json() for s in splits]})
    save_index(env.store, index)
    _step(progress, "finish", "packing", f"{len(rows):,} rows indexed")
    return index


def _heads(table, splits, per_split: int, skip, problems: list[str]) -> dict:
    heads = {}
    for split in splits:
        try:
            heads[_key(split)] = table.head(split, min(per_split, split.rows), skip)
        except (DataFileError, SourceError) as exc:
            heads[_key(split)] = []
            problems.append(f"{split.split}: {exc}")
    return heads


def _choose(env, sample: list[dict]):
    sample = sample[:SAMPLE_ROWS]
    return choose_processor(list(dict.fromkeys(k for r in sample for k in r)), sample, tags=env.record.tags)


def _choose_from_files(env, table, splits, per_split: int):
    """(processor, its claim, the columns left unread from then on). The sample leaves the largest columns of a
    huge first row group unread (columns.sample_skip); when the pick then turns out to depend on every field,
    the sample is read whole and the pick made again."""
    skip = columns.sample_skip(env, splits)
    processor, score = _choose(env, _sample(table, splits, per_split, skip))
    if skip and processor.shown_fields() is None:
        processor, score = _choose(env, _sample(table, splits, per_split, ()))
    return processor, score, columns.unread_columns(env, splits, processor.shown_fields())


def _sample(table, splits, per_split: int, skip) -> list[dict]:
    """The first SAMPLE_ROWS readable rows, split after split (a split's read errors are reported with its heads)."""
    out: list[dict] = []
    for split in splits:
        if len(out) >= SAMPLE_ROWS:
            break
        try:
            rows = table.head(split, min(SAMPLE_ROWS, split.rows), skip)
            if any(not isinstance(r, dict) for r in rows) and split.rows > SAMPLE_ROWS:
                rows = table.head(split, min(per_split, split.rows), skip)  # past the unreadable rows
        except (DataFileError, SourceError):
            continue
        out += [r for r in rows if isinstance(r, dict)]
    return out[:SAMPLE_ROWS]


def _traces_as_rollouts(env, table, splits):
    """The table's data files as rollout files of agent traces (read from the files themselves: a trace page reads
    its file again), with no split left to list as tasks."""
    if table.origin == "viewer":
        table = FileTable.survey(env)
        splits = table.splits()[:MAX_SPLITS]
    found = [{"path": f.path, "format": "traces", "why": "agent traces: recorded runs, not tasks", "records": f.rows}
             for split in splits for f in split.files if not f.error]
    table.rollouts = (found + table.rollouts)[:MAX_ROLLOUT_FILES]
    return table, [], {}


def _task_row(raw, task, text: str, ref: RowRef, show_split: bool) -> TaskRow:
    where = {"config": ref.config} if ref.config else {}
    if show_split:
        where["split"] = ref.split
    if task is None:
        return TaskRow(ref=str(ref), title=f"Row {ref.index}", error=str(raw), facets=where,
                       extra={"_unsearched": True})
    facets = {**task.facets, **where}
    extra = {"withheld": len(task.withheld)}
    words = search_words(text, task.title, task.brief)
    if words:
        extra["_words"] = words  # the rest of the prompt, for task search only (never shown)
    if ref.index >= SEARCHED_PER_SPLIT:
        extra["_unsearched"] = True  # listed on the environment page, left out of the catalog's task search
    return TaskRow(ref=str(ref), title=task.title, brief=task.brief, facets=facets, error=task.error, extra=extra)


def _column_stats(env, table, splits: list[SplitRows], processor, cleaned: list[dict]) -> list[dict]:
    """Counted over the indexed rows; the viewer's /statistics (over the whole first split) replaces the columns
    it covers. Withheld columns are in neither: the rows are cleaned, and the viewer's keep only the columns the
    cleaned rows still hold."""
    own = stats.column_stats(cleaned)
    shown = {str(k) for row in cleaned for k in row}
    if table.origin != "viewer" or not splits:
        return own
    try:
        payload = table.viewer.statistics(env.id, splits[0].config, splits[0].split, token=env.token)
        whole = {s["name"]: s for s in stats.viewer_stats(payload, lambda name: name not in shown)}
    except (SourceError, ValueError, TypeError, AttributeError):
        return own  # the viewer has no statistics for it: the indexed rows' counts stand
    return [whole.pop(s["name"], s) for s in own] + list(whole.values())


def _key(split: SplitRows) -> tuple:
    return split.config, split.split


def _step(progress, action: str, name: str, message: str) -> None:
    if action == "start":
        progress.start(name, message=message)
    else:
        progress.finish(name, message)
