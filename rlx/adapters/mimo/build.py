"""Indexing the MiMo release: every row of every domain (the release is a few thousand rows), each general task's
environment folder described once, the image map, and the Harbor conversions that name this release."""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.indexes import save_index, save_pack
from rlx.adapters.mimo import envfolder
from rlx.adapters.mimo.layout import DOMAIN_FILES, ENVS_DIR, IMAGE_MAPPING
from rlx.adapters.rows import readers
from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.processors import RowRef, get_processor, render_row
from rlx.adapters.rows.readers import BadRow, DataFileError
from rlx.adapters.rows.tables import DataFile, FileTable, SplitRows
from rlx.queue.progress import NullProgress
from rlx.sources.errors import EntryNotFound, SourceError

ROWS_PER_DOMAIN = 20_000  # the release's largest domain has 2,698 rows: every row is indexed
MAX_ENV_ENTRIES = 200_000  # entries listed under general/envs (the release has about 41,000 files)
MAX_IMAGE_LINES = 50_000
TWIN_KEYS = ("mimo_instance_id", "source_instance_id")  # task.toml metadata naming the release's instance


def build_index(env, adapter_key: str, version: int, progress=None) -> Index:
    progress = progress or NullProgress()
    started = time.monotonic()
    progress.start("listing", message="Reading the release's domain files")
    splits, problems = _survey(env)
    progress.finish("listing", f"{len(splits)} domain(s), {sum(s.rows for s in splits):,} rows")
    progress.start("fetching", message="Reading every row")
    table, processor = FileTable(env, splits), get_processor("mimo")
    rows = []
    for split in splits:
        try:
            raws = table.head(split, min(split.rows, ROWS_PER_DOMAIN))
        except (DataFileError, SourceError) as exc:
            problems.append(f"{split.config}: {exc}")
            raws = []
        rows += [_task_row(processor, raw, RowRef("train", i, split.config)) for i, raw in enumerate(raws)]
    progress.finish("fetching", f"{len(rows):,} rows read")
    progress.start("packing", message="Describing the general tasks' folders")
    envs = _describe_envs(env, {r.extra.get("instance_id") for r in rows if r.facets.get("domain") == "General"},
                          problems)
    for row in rows:
        folder = envs.get(row.extra.get("instance_id"))
        if folder:
            row.extra.update(systems=len(folder["systems"]), files=sum(1 for f in folder["files"] if f[1] == "file"),
                             checks=len((folder["rubric"] or {}).get("items") or []))
    summary = {
        "kind": processor.kind, "processor": processor.key, "processor_label": "MiMo release", "origin": "files",
        "rows_total": sum(s.rows for s in splits), "several_configs": True,
        "splits": [s.as_json() for s in splits], "problems": problems[:50],
        "domains": dict(Counter(r.facets.get("domain", "other") for r in rows)),
        "main_facets": _main_facets(rows), "rubric": rubric_stats(envs.values()),
        "twins": find_twins(env), "seconds": round(time.monotonic() - started, 2),
    }
    index = Index(env_id=env.id, adapter=adapter_key, revision=env.revision, version=version,
                  built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), complete=True, rows=rows,
                  summary=summary)
    save_pack(env.store, env.id, {"revision": env.revision, "version": version, "origin": "files",
                                  "splits": summary["splits"], "envs": envs, "images": _images(env)})
    save_index(env.store, index)
    progress.finish("packing", f"{len(rows):,} tasks, {len(envs):,} task folders")
    return index


def _survey(env) -> tuple[list[SplitRows], list[str]]:
    """One split per domain file present (config = the domain), its rows counted from the parquet footer."""
    found = {e.path for e in env.source.paths_info(env.repo_type, env.id, list(DOMAIN_FILES.values()),
                                                   revision=env.revision, token=env.token)}
    splits, problems = [], []
    for domain, path in DOMAIN_FILES.items():
        if path not in found:
            continue
        data = DataFile(path, "parquet")
        try:
            counted = readers.survey(local_file(env, path), "parquet")
            data.rows, data.marks = counted.rows, counted.marks
        except (DataFileError, SourceError, OSError) as exc:
            data.error = str(exc)
            problems.append(str(exc))
        splits.append(SplitRows(domain, "train", data.rows, [data], [data.error] if data.error else []))
    return splits, problems


def _task_row(processor, raw, ref: RowRef) -> TaskRow:
    if isinstance(raw, BadRow):
        return TaskRow(ref=str(ref), title=f"Row {ref.index}", error=str(raw), facets={"domain": ref.config})
    task = render_row(processor, raw, ref)
    return TaskRow(ref=str(ref), title=task.title, brief=task.brief, facets=task.facets, error=task.error,
                   extra={"withheld": len(task.withheld), "instance_id": task.facts.get("instance", "")})


def _describe_envs(env, task_ids: set, problems: list[str]) -> dict[str, dict]:
    """Each general task's folder that has a row, described (files, systems, databases, rubric)."""
    by_task: dict[str, list] = defaultdict(list)
    try:
        for n, entry in enumerate(env.source.list_tree(env.repo_type, env.id, path=ENVS_DIR, recursive=True,
                                                       revision=env.revision, token=env.token)):
            if n >= MAX_ENV_ENTRIES:
                problems.append(f"{ENVS_DIR} holds more than {MAX_ENV_ENTRIES:,} entries; the rest are not read.")
                break
            task_id = entry.path[len(ENVS_DIR) + 1:].split("/", 1)[0]
            if task_id in task_ids and entry.path.count("/") > ENVS_DIR.count("/") + 1:
                by_task[task_id].append(entry)
    except EntryNotFound:
        return {}
    except SourceError as exc:
        problems.append(f"{ENVS_DIR}: {exc}")
        return {}
    return {task_id: envfolder.describe(env, f"{ENVS_DIR}/{task_id}", entries)
            for task_id, entries in sorted(by_task.items())}


def _images(env) -> dict[str, str]:
    """image-mapping.jsonl: the image each general task runs in."""
    try:
        text = env.read_text(IMAGE_MAPPING, 16 * 1024 * 1024)
    except (SourceError, EntryNotFound):
        return {}
    images = {}
    for line in text.splitlines()[:MAX_IMAGE_LINES]:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("task_id"), str) and isinstance(item.get("image"), str):
            images[item["task_id"]] = item["image"][:300]
    return images


MAIN_FACET = {"Code": "programming_language", "Cyber": "crash_type", "Webdev": "framework_mentioned",
              "Music": "style", "General": "industry"}


def _main_facets(rows: list[TaskRow]) -> dict[str, list]:
    """Per domain, its main facet's top values with counts (the treemap's inner blocks)."""
    out = {}
    for domain, key in MAIN_FACET.items():
        counts = Counter()
        for row in rows:
            if row.facets.get("domain") == domain:
                value = row.facets.get(key)
                for v in value if isinstance(value, list) else [value or "none named"]:
                    counts[v] += 1
        if counts:
            out[domain] = counts.most_common(8)
    return out


def rubric_stats(folders) -> dict:
    """The general rubrics across the release: checks, by method and tier, and tasks with mixed weights."""
    checks, methods, tiers, mixed, tasks = 0, Counter(), Counter(), 0, 0
    for folder in folders:
        items = (folder.get("rubric") or {}).get("items") or []
        if not items:
            continue
        tasks += 1
        checks += len(items)
        methods.update(str(i.get("method") or "unknown") for i in items)
        tiers.update(str(i.get("tier") or "unrated") for i in items)
        mixed += len({i.get("weight") for i in items}) > 1
    return {"tasks": tasks, "checks": checks, "methods": dict(methods), "tiers": dict(tiers), "mixed": mixed}


def find_twins(env) -> list[str]:
    """Harbor datasets whose card names this release in `source_datasets`: its conversions."""
    try:
        records = env.source.list_repos("dataset", ["harbor"], token=env.token)
    except SourceError:
        return []
    twins = []
    for record in records[:5000]:
        named = record.card.get("source_datasets") if isinstance(record.card, dict) else None
        named = [named] if isinstance(named, str) else named
        if isinstance(named, list) and env.id in named and record.id != env.id:
            twins.append(record.id)
    return twins[:20]
