"""Building a Harbor dataset's index and pack: find the tasks, publish the list, fetch, read, pack.

The task list is published (a partial index) as soon as it is known, then again as each batch of tasks is
read, so a big dataset's page opens at once and fills in. Files are fetched in parallel, 48 at a time; the
source retries 429 and 5xx with backoff, and a failure it still reports fails the whole build (only a file that
is absent or too large is that task's own error). The pack is written before the complete index, so a reader
that sees a complete index always finds its pack.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

from rlx.adapters.contract import Index, TaskRow
from rlx.adapters.harbor.discover import discover, nested_tasks
from rlx.adapters.harbor.reader import files_to_fetch, read_task, ref_for
from rlx.adapters.harbor.reader import _default_title as default_title
from rlx.adapters.indexes import save_index, save_pack
from rlx.adapters.manifest import read_manifest
from rlx.sources.errors import EntryNotFound, RevisionNotFound, TooLarge

FETCH_PARALLEL = 48
BATCH_TASKS = 250  # tasks read between two publications of the partial index
TEXT_MAX_BYTES = 512 * 1024
STEPS = ["listing", "fetching", "packing"]


def build_index(env, adapter_key: str, version: int, progress=None) -> Index:
    started = time.monotonic()
    _start(progress, "listing", message="Listing the repository")
    summary = {"walked": False, "notes": [], "truncated": False, "seconds": 0}
    pending: dict[str, TaskRow] = {}

    def index_of(rows: list[TaskRow], complete: bool) -> Index:
        return Index(env_id=env.id, adapter=adapter_key, revision=env.revision, version=version,
                     built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), complete=complete,
                     rows=rows, summary=dict(summary))

    def publish_list(task_dirs: list[str], walked: bool) -> None:
        """The task list, published the moment it is known: the page opens and fills in as files arrive."""
        summary["walked"] = walked
        for d in task_dirs:
            pending[d] = TaskRow(ref=ref_for(d), title=default_title(ref_for(d)), extra={"_dir": d, "pending": True})
        save_index(env.store, index_of(list(pending.values()), complete=False))

    found = discover(env, on_found=lambda n: _update(progress, "listing", n, message=f"{n:,} tasks found"),
                     on_tasks=publish_list)
    summary.update(walked=found.walked, notes=found.notes, truncated=found.truncated)
    if not found.task_dirs:
        summary["no_tasks"] = no_tasks_sentence(found)
    _finish(progress, "listing", f"{len(found.task_dirs):,} tasks found")

    wanted = [(d, rel) for d in found.task_dirs for rel in files_to_fetch(found.files[d], found.walked)]
    wanted += _step_files(env, found)
    _start(progress, "fetching", total=len(wanted), message=f"Fetching {len(wanted):,} files")
    texts: dict[str, dict[str, str]] = {d: {} for d in found.task_dirs}
    blobs: dict[str, str] = {}
    entries: dict[str, dict] = {}
    done = 0
    nested = nested_tasks(found.task_dirs)
    with ThreadPoolExecutor(FETCH_PARALLEL) as pool:
        try:
            for batch in _batches(found.task_dirs, BATCH_TASKS):
                batch_set = set(batch)
                jobs = [(d, rel) for d, rel in wanted if d in batch_set]
                for (task_dir, rel), text in zip(jobs, pool.map(lambda job: _fetch(env, *job), jobs)):
                    if text is not None:
                        texts[task_dir][rel] = text
                    done += 1
                    _update(progress, "fetching", done)
                for task_dir in batch:
                    inner = {rel: ref_for(d) for rel, d in nested.get(task_dir, {}).items()}
                    row, entry = read_task(task_dir, found.files[task_dir], texts.pop(task_dir), found.walked,
                                           inner)
                    entry["texts"] = {path: _blob(blobs, text) for path, text in entry["texts"].items()}
                    entries[row.ref] = entry
                    pending[task_dir] = row
                save_index(env.store, index_of(list(pending.values()), complete=False))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)  # the build has failed: start no more fetches
            raise
    _finish(progress, "fetching", f"{done:,} files fetched")

    _start(progress, "packing", message="Writing the pack")
    readme = _readme(env)
    save_pack(env.store, env.id, {"revision": env.revision, "version": version, "blobs": blobs, "tasks": entries})
    index = index_of(list(pending.values()), complete=True)
    index.summary["seconds"] = round(time.monotonic() - started, 2)
    index.summary["readme"] = readme
    index.summary["manifest"] = read_manifest(env)
    save_index(env.store, index)
    _finish(progress, "packing", f"{len(entries):,} tasks packed")
    return index


def no_tasks_sentence(found) -> str:
    """Why the list is empty, for a dataset page that would otherwise only say that nothing matched."""
    many = found.looked_at != 1
    what = (f"{found.looked_at:,} folder{'s were' if many else ' was'} looked into" if found.walked
            else f"{found.looked_at:,} file{'s were' if many else ' was'} listed")
    return (f"No folder in this repository holds a task.toml (a Harbor task) or a task.yaml (an older "
            f"Terminal-Bench task): {what}, and none of them is a task file.")


def _step_files(env, found) -> list[tuple[str, str]]:
    """Multi-step tasks: each step's instruction and grader, when the listing knows them (a walked task's steps
    are read when its page is first opened)."""
    wanted = []
    for task_dir, entries in found.files.items():
        for entry in entries:
            parts = entry.path.split("/")
            if len(parts) == 3 and parts[0] == "steps" and parts[2] == "instruction.md":
                wanted.append((task_dir, entry.path))
            elif len(parts) == 4 and parts[0] == "steps" and parts[2] == "tests" and parts[3] == "test.sh":
                wanted.append((task_dir, entry.path))
    return wanted


def _readme(env) -> str | None:
    """The dataset card's text (front matter dropped), kept with the index so its page never reads the source."""
    text = _fetch(env, "", "README.md")
    if text is None:
        return None
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4:] if end != -1 else text
    return text.strip()[:64_000] or None


def _fetch(env, task_dir: str, rel: str) -> str | None:
    """A file's text, or None when that one file is the problem (absent, too large): its task says so. Any
    other failure (the source down, a revision gone) stops the build: a pack of empty tasks is never published."""
    path = f"{task_dir}/{rel}" if task_dir else rel
    try:
        return env.read_text(path, max_bytes=TEXT_MAX_BYTES)
    except RevisionNotFound:
        raise
    except (EntryNotFound, TooLarge):
        return None


def _blob(blobs: dict[str, str], text: str) -> str:
    key = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]
    blobs.setdefault(key, text)
    return key


def _batches(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _start(progress, step, total=None, message=""):
    if progress is not None:
        progress.start(step, total=total, message=message)


def _update(progress, step, done, message=None):
    if progress is not None:
        progress.update(step, done, message=message)


def _finish(progress, step, message=""):
    if progress is not None:
        progress.finish(step, message)
