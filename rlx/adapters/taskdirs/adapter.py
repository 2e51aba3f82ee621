"""Repositories of task folders without task.toml: an instruction file plus tests/ or a grader, per folder.

Why an adapter of its own rather than a Harbor extension: Harbor's reader, sections and runners are built on
task.toml (its runtime, verifier, timeouts, what can run here); these folders have none of it, and reading them
as Harbor would fill every Harbor page with "no task.toml" errors and count them as Harbor in the catalog. What
the two share is reused rather than rewritten: each file is judged at its Harbor place (find.as_harbor) by
Harbor's rules (withheld_file_reason, withhold_task_texts: one task's texts at once, a value masked once masked
everywhere), the pack has the Harbor pack's shape, and a file read late is masked by Harbor's viewer.
"""

from __future__ import annotations

import hashlib
import posixpath
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

from rlx.adapters import blocks as b
from rlx.adapters.contract import FileView, Index, Section, TaskRow, TaskView, Withheld
from rlx.adapters.harbor.adapter import HarborAdapter
from rlx.adapters.harbor.reader import SOLUTIONS_READ, is_text_name, strip_canary
from rlx.adapters.harbor.reader import _brief as brief_of
from rlx.adapters.indexes import load_pack, save_index, save_pack
from rlx.adapters.paths import safe_relpath
from rlx.adapters.rows.adapter import ROW_TAGS
from rlx.adapters.rows.datafiles import is_data_file
from rlx.adapters.task_words import search_words
from rlx.adapters.taskdirs import find
from rlx.adapters.withhold import withhold_task_texts
from rlx.adapters.withhold.task import text_kind
from rlx.queue.progress import NullProgress
from rlx.sources.errors import EntryNotFound, SourceError

MAX_LISTED = 50_000
MAX_TASKS = 5_000
PROBE_ENTRIES = 5_000
TEXT_MAX_BYTES = 512 * 1024
FETCH_PARALLEL = 16
TOO_BIG_WHY = "A grader file too large to check for answers is withheld."


class TaskFoldersAdapter(HarborAdapter):
    key = "task-folders"
    label = "Task folders"
    cannot_run_why = ("their folders have no task.toml, and this site runs only Harbor tasks, whose task.toml "
                      "names the image and the grader script.")
    index_version = 1

    def score(self, record) -> float:
        if record.repo_type != "dataset" or "harbor" in record.tags:
            return 0.0
        # Always looked at (confirmed) before the rows adapter, whose look is "any data file": a task folder's
        # inputs (workspace/base.json) would pass it. Tagged an RL environment: before the rows adapter's 0.8.
        return 0.85 if ROW_TAGS & set(record.tags) else 0.27

    def confirm(self, env) -> bool:
        """A task folder in the first entries of the listing, no task.toml, and no data files beside the tasks."""
        paths = []
        for n, entry in enumerate(env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                                       token=env.token)):
            if entry.path.endswith("task.toml"):
                return False  # Harbor's
            if n >= PROBE_ENTRIES:
                break
            if not entry.is_dir:
                paths.append(entry.path)
        return _has_tasks(paths)

    def kind_of_index(self, index: Index):
        return "task-folders" if index.rows else False

    def build_index(self, env, progress=None) -> Index:
        progress = progress or NullProgress()
        progress.start("listing", message="Listing the repository")
        sizes = {}
        for entry in env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                          token=env.token):
            if not entry.is_dir:
                sizes[entry.path] = entry.size
            if len(sizes) >= MAX_LISTED:
                break
        tasks = find.task_folders(list(sizes), MAX_TASKS)
        progress.finish("listing", f"{len(tasks):,} task folders found")
        wanted = [(folder, rel) for folder, files in tasks.items() for rel in files
                  if _wanted(rel, sizes[f"{folder}/{rel}"], find.instruction_of(files))]
        progress.start("fetching", total=len(wanted), message=f"Fetching {len(wanted):,} files")
        texts: dict[str, dict[str, str]] = {folder: {} for folder in tasks}
        with ThreadPoolExecutor(FETCH_PARALLEL) as pool:
            for (folder, rel), text in zip(wanted, pool.map(lambda job: _fetch(env, *job), wanted)):
                if text is not None:
                    texts[folder][rel] = text
        progress.finish("fetching", f"{len(wanted):,} files fetched")
        progress.start("packing", message="Writing the pack")
        rows, entries, blobs = [], {}, {}
        for folder, files in tasks.items():
            row, entry = read_folder(folder, files, sizes, texts[folder])
            entry["texts"] = {path: _blob(blobs, text) for path, text in entry["texts"].items()}
            rows.append(row)
            entries[row.ref] = entry
        save_pack(env.store, env.id, {"revision": env.revision, "version": self.index_version, "blobs": blobs,
                                      "tasks": entries})
        index = Index(env_id=env.id, adapter=self.key, revision=env.revision, version=self.index_version,
                      built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), complete=True, rows=rows,
                      summary={"kind": "task-folders", "truncated": len(tasks) >= MAX_TASKS})
        save_index(env.store, index)
        progress.finish("packing", f"{len(rows):,} tasks packed")
        return index

    def overview(self, env, index: Index):
        graders = {}
        for row in index.rows:
            graders[row.facets.get("grader", "?")] = graders.get(row.facets.get("grader", "?"), 0) + 1
        pairs = [("Tasks", f"{len(index.rows):,}"), ("Format", "task folders (an instruction file and a grader, "
                                                              "no task.toml)")]
        parts = [b.kv(pairs), b.stats([{"label": "Grader", "key": "grader",
                                        "items": sorted(graders.items(), key=lambda kv: -kv[1])[:12]}])]
        if index.summary.get("truncated"):
            parts.append(b.note(f"Only the first {MAX_TASKS:,} task folders are listed.", "warn"))
        return [Section("summary", "At a glance", parts)]

    def task(self, env, index: Index, ref: str):
        row = next((r for r in index.rows if r.ref == ref), None)
        pack = load_pack(env.store, env.id)
        if row is None or pack is None or ref not in pack["tasks"]:
            return None
        return task_view(row, pack["tasks"][ref], pack["blobs"])

    def run_options(self, env, index: Index, ref: str):
        return []  # no task.toml: nothing says what image or grader command it runs with

    def list_folder(self, env, index: Index, ref: str, path: str):
        """The folder as indexed, each entry withheld or not by its Harbor place (never re-judged by its path)."""
        entry = self._entry(env, index, ref)
        folder = safe_relpath(path)
        if entry is None or folder is None:
            return None
        known = {p: (p, t, s, w) for p, t, s, w in entry["files"]}
        if folder and known.get(folder, (None, None))[1] != "directory":
            return None
        children = [e for p, e in known.items() if posixpath.dirname(p) == folder]
        return [{"path": p, "type": t, "size": s, "task": None, "withheld": w}
                for p, t, s, w in sorted(children, key=lambda e: (e[1] != "directory", e[0]))]

    def read_file(self, env, index: Index, ref: str, path: str):
        """A file as indexed: withheld by its Harbor place, its masked text from the pack, else fetched and masked
        as Harbor's viewer masks a file read late."""
        entry = self._entry(env, index, ref)
        rel = safe_relpath(path)
        listed = {p: (t, s, w) for p, t, s, w in entry["files"]} if entry is not None and rel else {}
        if rel not in listed or listed[rel][0] == "directory":
            return None
        _, size, reason = listed[rel]
        if reason:
            return FileView(path=rel, withheld=reason, size=size)
        blob = entry["texts"].get(rel)
        if blob is not None:
            text = load_pack(env.store, env.id)["blobs"][blob]
            return FileView(path=rel, text=text, size=size or len(text.encode()))
        return self._fetch_file(env, entry, rel, size)


def read_folder(folder: str, files: list[str], sizes: dict[str, int], texts: dict[str, str]):
    """The index row and pack entry of one task folder, answers withheld and masked on the way in by Harbor's
    rules, each file judged at its Harbor place (find.as_harbor), all of the task's texts at once."""
    instruction_name = find.instruction_of(files)
    grader = find.grader_of(files)
    withheld, file_list = [], []
    for sub in sorted({"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}):
        file_list.append([sub, "directory", 0, find.withheld_reason(sub, instruction_name, is_dir=True)])
    for rel in files:
        size = sizes.get(f"{folder}/{rel}", 0)
        reason = find.withheld_reason(rel, instruction_name)
        if reason is None and rel not in texts and is_text_name(rel) and size > TEXT_MAX_BYTES \
                and text_kind(find.as_harbor(rel, instruction_name)) != "agent":
            reason = TOO_BIG_WHY  # too large to be read for answers, so not shown either
        if reason:
            withheld.append([rel, reason])
        file_list.append([rel, "file", size, reason])
    instruction = strip_canary(texts.get(instruction_name or "", ""))
    places = {find.as_harbor(rel, instruction_name): rel for rel in texts if rel != instruction_name}
    if len(places) < len(texts) - (instruction_name in texts):
        places = {rel: rel for rel in texts if rel != instruction_name}  # two files meet at one place: as named
    shown = withhold_task_texts({place: texts[rel] for place, rel in places.items()}, public=instruction)
    packed = {places[place]: text for place, text in shown.texts.items()}
    withheld += [[_named(w.where, places), w.why] for w in shown.withheld]
    if instruction_name in texts:
        packed[instruction_name] = instruction
    ref = folder[len("tasks/"):] if folder.startswith("tasks/") else folder
    row = TaskRow(ref=ref, title=ref.rsplit("/", 1)[-1], brief=brief_of(instruction),
                  facets={"grader": grader.rsplit("/", 1)[-1] if grader else "none",
                          "instruction": instruction_name or "none"},
                  extra={"_dir": folder, "withheld": len(withheld),
                         "_words": search_words(instruction or "", ref, brief_of(instruction))})
    entry = {"dir": folder, "walked": False, "files": sorted(file_list, key=lambda f: f[0]), "texts": packed,
             "withheld": withheld, "instruction": instruction_name, "grader": grader,
             "_answer_values": shown.values}
    return row, entry


def _named(where: str, places: dict[str, str]) -> str:
    """A withheld place named by the file's own path ("grader.py line 8", not "tests/grader.py line 8")."""
    for place, rel in sorted(places.items(), key=lambda pr: -len(pr[0])):
        if where == place or where.startswith(place + " "):
            return rel + where[len(place):]
    return where


def task_view(row: TaskRow, entry: dict, blobs: dict) -> TaskView:
    text = lambda path: blobs.get(entry["texts"].get(path or "", ""), None)  # noqa: E731
    instruction = text(entry.get("instruction"))
    given = [b.prompt(instruction)] if instruction and instruction.strip() else \
        [b.note("This task's instruction file is empty or could not be read.", "warn")]
    graded = [b.kv([("Grader", entry.get("grader")), ("Instruction file", entry.get("instruction"))])]
    script = text(entry.get("grader"))
    if script is not None:
        language = "python" if entry["grader"].endswith(".py") else "bash"
        graded.append(b.code(script, language, entry["grader"], title="The grader"))
    graded.append(b.note("Files beside the grader (expected outputs, answer keys, reference solutions) are "
                         "withheld; answers written into grader scripts are masked.", "info"))
    files = b.files([{"path": p, "type": t, "size": s, "withheld": w} for p, t, s, w in entry["files"]])
    sections = [Section("task", "What the agent gets", given), Section("grading", "How it is graded", graded),
                Section("files", "Files", [files])]
    withheld = [Withheld(where, why) for where, why in entry.get("withheld", [])]
    return TaskView(ref=row.ref, title=row.title, sections=sections, withheld=withheld,
                    facts={"grader": row.facets.get("grader")})


def _has_tasks(paths: list[str]) -> bool:
    tasks = find.task_folders(paths, 50)
    if not tasks:
        return False
    inside = lambda p: any(p.startswith(t + "/") for t in tasks)  # noqa: E731
    return not any(is_data_file(p) and not inside(p) for p in paths)


def _wanted(rel: str, size: int, instruction: str | None) -> bool:
    """Every shown text file, and the solution Harbor reads for the values it writes (never shown)."""
    if size > TEXT_MAX_BYTES:
        return False
    if find.withheld_reason(rel, instruction) is not None:
        return find.as_harbor(rel, instruction) in SOLUTIONS_READ
    return rel == instruction or is_text_name(rel)


def _fetch(env, folder: str, rel: str) -> str | None:
    try:
        return env.read_text(f"{folder}/{rel}", max_bytes=TEXT_MAX_BYTES)
    except EntryNotFound:
        return None
    except SourceError as exc:
        if getattr(exc, "status", None) == 503:
            raise  # the source is down: the build fails and is retried, never a hollow pack
        return None


def _blob(blobs: dict, text: str) -> str:
    key = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]
    blobs.setdefault(key, text)
    return key
