"""The Harbor adapter: datasets of task folders (task.toml, instruction.md, environment/, tests/, solution/)."""

from __future__ import annotations

import posixpath
from itertools import islice

from rlx.adapters import aliases as alias_rules
from rlx.adapters.contract import Adapter, FileView, Index
from rlx.adapters.harbor import build, runoptions, sections
from rlx.adapters.harbor.layout import LAYOUTS, TASK_FILES
from rlx.adapters.harbor.reader import NESTED_TASK_WHY, SOLUTIONS_READ, is_text_name
from rlx.adapters.indexes import load_pack
from rlx.adapters.paths import safe_relpath
from rlx.adapters.rows.datafiles import is_data_file
from rlx.adapters.withhold import mask_task_text, withheld_file_reason, withhold_task_texts
from rlx.sources.errors import EntryNotFound

FILE_SHOWN_MAX = 1024 * 1024  # a file larger than this is shown cut, with a note
FILE_FETCH_MAX = 4 * 1024 * 1024  # a file larger than this is not fetched at all
_LAZY_LISTINGS: dict[tuple, list | None] = {}  # (env, revision, folder) -> entries, for walked tasks
_LAZY_VALUES: dict[tuple, list[str]] = {}  # (env, revision, task folder) -> its masked values, for walked tasks
DEEP_CONFIRM_ENTRIES = 3000  # three pages of the Hub's tree listing: the closer look stays cheap
VALUE_FILES_MAX = 64  # files a walked task reads, once, to learn which values its graders mask


class HarborAdapter(Adapter):
    key = "harbor"
    label = "Harbor"
    index_version = 4  # 2: older Terminal-Bench tasks, compose services, per-step settings; 3: instruction words;
    # 4: whether an HF Sandbox can run each task
    TAGS = {"harbor", "terminal-bench"}

    def score(self, record) -> float:
        if record.repo_type != "dataset":
            return 0.0
        return 1.0 if self.TAGS & set(record.tags) else 0.3

    def confirm(self, env) -> bool:
        """Untagged datasets: a task file (task.toml, or an older task.yaml) at the root, in a root folder, or in
        the first folder under tasks/; failing those cheap probes, anywhere in the first pages of the recursive
        listing (real repositories nest tasks deeper: `<project>/recipes/<task>/`, `datasets/<suite>/<task>/`)."""
        source, kw = env.source, {"revision": env.revision, "token": env.token}
        folders = [e.path for e in source.list_tree(env.repo_type, env.id, recursive=False, **kw) if e.is_dir][:200]
        probes = [*TASK_FILES, *(f"{f}/{name}" for f in folders for name in TASK_FILES)]
        if "tasks" in folders:
            first = next((e.path for e in source.list_tree(env.repo_type, env.id, path="tasks", **kw) if e.is_dir),
                         None)
            if first:
                probes += [f"{first}/{name}" for name in TASK_FILES]
        if source.paths_info(env.repo_type, env.id, probes, **kw):
            return True
        listing = islice(source.list_tree(env.repo_type, env.id, recursive=True, **kw), DEEP_CONFIRM_ENTRIES)
        return any(not e.is_dir and posixpath.basename(e.path) in TASK_FILES for e in listing)

    def build_index(self, env, progress=None) -> Index:
        index = build.build_index(env, self.key, self.index_version, progress)
        if index.rows or not self.TAGS & set(env.record.tags):
            return index
        return _packed_instead(env, index, progress)

    def overview(self, env, index: Index):
        return sections.overview(index, index.summary.get("readme"))

    def task(self, env, index: Index, ref: str):
        row = _row(index, ref)
        pack = load_pack(env.store, env.id)
        if row is None or pack is None or ref not in pack["tasks"]:
            return None
        return sections.task_view(row, pack["tasks"][ref], pack["blobs"])

    def run_options(self, env, index: Index, ref: str):
        entry = self._entry(env, index, ref)
        return [] if entry is None else [runoptions.local_option(entry), runoptions.hf_option(entry)]

    def aliases(self, env, index: Index, ref: str):
        """A converted task names its source's instance in its metadata (rlx/adapters/aliases.py)."""
        entry = self._entry(env, index, ref)
        name = alias_rules.instance_named(((entry or {}).get("config") or {}).get("metadata"))
        return alias_rules.in_sources(env.store, env.record, name)

    def list_folder(self, env, index: Index, ref: str, path: str):
        entry = self._entry(env, index, ref)
        folder = safe_relpath(path)
        if entry is None or folder is None:
            return None
        known = {p: (p, t, s, w) for p, t, s, w in entry["files"]}
        if entry.get("walked"):  # a walked task's folders are listed on first open, never while indexing
            lazy = self._list_lazily(env, entry, folder)
            if lazy is None and folder not in ("",) and folder not in known:
                return None
            for item in lazy or []:
                known.setdefault(item[0], item)
        elif folder and known.get(folder, (None, None))[1] != "directory":
            return None
        children = [e for p, e in known.items() if posixpath.dirname(p) == folder]
        nested = self._nested_roots(env, entry, folder, children)
        tasks = entry.get("nested") or {}
        root = LAYOUTS[entry.get("format", "harbor")].environment_root
        return [{"path": p, "type": t, "size": s, "task": tasks.get(p),
                 "withheld": w or (NESTED_TASK_WHY if p in tasks else None)
                 or withheld_file_reason(p, is_dir=t == "directory", nested=nested, environment_root=root)}
                for p, t, s, w in sorted(children, key=lambda e: (e[1] != "directory", e[0]))]

    def read_file(self, env, index: Index, ref: str, path: str):
        entry = self._entry(env, index, ref)
        rel = safe_relpath(path)
        if entry is None or not rel:
            return None
        listed = {p: (t, s) for p, t, s, _ in entry["files"]}
        reason = withheld_file_reason(rel, nested=self._nested_roots(env, entry, posixpath.dirname(rel)),
                                      environment_root=LAYOUTS[entry.get("format", "harbor")].environment_root)
        if rel not in listed and not (entry.get("walked") and self._exists_lazily(env, entry, rel)):
            return None
        kind, size = listed.get(rel, ("file", 0))
        if kind == "directory":
            return None
        if reason:
            return FileView(path=rel, withheld=reason, size=size)
        pack = load_pack(env.store, env.id)
        blob = entry["texts"].get(rel)
        if blob is not None:
            text = pack["blobs"][blob]
            return FileView(path=rel, text=text, size=size or len(text.encode()))
        return self._fetch_file(env, entry, rel, size)

    # Internals

    def _entry(self, env, index: Index, ref: str):
        pack = load_pack(env.store, env.id)
        if pack is None or _row(index, ref) is None:
            return None
        return pack["tasks"].get(ref)

    def _nested_roots(self, env, entry, folder: str, children=()) -> list[str]:
        """Folders from the task's root down to `folder` that hold a task of their own, so what lies inside them is
        judged by that task's rules. Indexed tasks know theirs; a walked task's folders are asked the source."""
        roots = list(entry.get("nested") or {})
        if not entry.get("walked") or not folder:
            return roots
        names = {c[0] for c in children}
        if any(f"{folder}/{name}" in names for name in TASK_FILES):
            roots.append(folder)
        ancestors, current = [], folder
        while current:
            ancestors.append(current)
            current = posixpath.dirname(current)
        probes = [self._full_path(entry, f"{a}/{name}") for a in ancestors if a not in roots for name in TASK_FILES]
        if probes:
            found = env.source.paths_info(env.repo_type, env.id, probes, revision=env.revision, token=env.token)
            prefix = f"{entry['dir']}/" if entry["dir"] else ""
            roots += [posixpath.dirname(e.path[len(prefix):]) for e in found if not e.is_dir]
        return roots

    def _answer_values(self, env, entry) -> list[str]:
        """Every value masked somewhere in the task. An indexed task knows them; a walked task read only a few of
        its files while indexing, so on its first lazily read file it reads its graders and root scripts once."""
        if not entry.get("walked"):
            return entry.get("_answer_values") or []
        key = (env.id, env.revision, entry["dir"])
        if key not in _LAZY_VALUES:
            _LAZY_VALUES[key] = self._read_values(env, entry)
            while len(_LAZY_VALUES) > 512:
                _LAZY_VALUES.pop(next(iter(_LAZY_VALUES)))
        return _LAZY_VALUES[key]

    def _read_values(self, env, entry) -> list[str]:
        known = {p: (t, s) for p, t, s, _ in entry["files"]}
        for folder in ("", "tests"):
            for path, kind, size, _ in self._list_lazily(env, entry, folder) or []:
                known.setdefault(path, (kind, size))
        wanted = [p for p, (kind, size) in sorted(known.items()) if kind != "directory" and is_text_name(p)
                  and (size or 0) <= FILE_FETCH_MAX and (not withheld_file_reason(p) or p in SOLUTIONS_READ)]
        texts = {}
        for path in wanted[:VALUE_FILES_MAX]:
            try:
                data = env.source.read_file(env.repo_type, env.id, self._full_path(entry, path),
                                            revision=env.revision, token=env.token, max_bytes=FILE_FETCH_MAX)
            except EntryNotFound:
                continue
            texts[path] = data.decode("utf-8", errors="replace")
        found = withhold_task_texts(texts).values
        return sorted({*found, *(entry.get("_answer_values") or [])}, key=lambda v: (-len(v), v))

    def _full_path(self, entry, rel: str) -> str:
        return f"{entry['dir']}/{rel}" if entry["dir"] else rel

    def _list_lazily(self, env, entry, folder: str):
        """One folder of a walked task, listed from the source (remembered a while); None when absent."""
        full = self._full_path(entry, folder).rstrip("/")
        key = (env.id, env.revision, full)
        if key not in _LAZY_LISTINGS:
            try:
                found = list(env.source.list_tree(env.repo_type, env.id, path=full, revision=env.revision,
                                                  token=env.token))
            except EntryNotFound:
                found = None
            prefix = entry["dir"]
            _LAZY_LISTINGS[key] = None if found is None else [
                (e.path[len(prefix) + 1:] if prefix else e.path, e.type, e.size, None) for e in found]
            while len(_LAZY_LISTINGS) > 2048:
                _LAZY_LISTINGS.pop(next(iter(_LAZY_LISTINGS)))
        return _LAZY_LISTINGS[key]

    def _exists_lazily(self, env, entry, rel: str) -> bool:
        found = env.source.paths_info(env.repo_type, env.id, [self._full_path(entry, rel)], revision=env.revision,
                                      token=env.token)
        return any(not e.is_dir for e in found)

    def _fetch_file(self, env, entry, rel: str, size: int) -> FileView:
        if size > FILE_FETCH_MAX:
            return FileView(path=rel, binary=not is_text_name(rel), size=size, truncated=True)
        data = env.source.read_file(env.repo_type, env.id, self._full_path(entry, rel), revision=env.revision,
                                    token=env.token, max_bytes=FILE_FETCH_MAX)
        if b"\x00" in data[:8192]:
            return FileView(path=rel, binary=True, size=size or len(data))
        text = mask_task_text(rel, data[:FILE_SHOWN_MAX].decode("utf-8", errors="replace"),
                              self._answer_values(env, entry))
        return FileView(path=rel, text=text, size=size or len(data), truncated=len(data) > FILE_SHOWN_MAX)


def _row(index: Index, ref: str):
    for row in index.rows:
        if row.ref == ref:
            return row
    return None


def _packed_instead(env, empty: Index, progress) -> Index:
    """A tagged dataset with no task folder but with data files: its tasks may be packed into rows (a
    tasks.parquet at any path), which the rows adapter's packed-Harbor processor reads, or it may hold a job's
    trial folders, which the rows adapter lists as recorded runs. Looked at only when the
    folder walk found nothing, so a dataset of task folders costs no extra listing."""
    from rlx.adapters.indexes import save_index
    from rlx.adapters.registry import get

    listing = islice(env.source.list_tree(env.repo_type, env.id, recursive=True, revision=env.revision,
                                          token=env.token), DEEP_CONFIRM_ENTRIES)
    if not any(not e.is_dir and is_data_file(e.path) for e in listing):
        return empty
    packed = get("rows").build_index(env, progress)
    if packed.rows and packed.summary.get("processor") == "packed-harbor":
        return packed
    if not packed.rows and packed.summary.get("traces_only"):  # a job's results: trial folders, runs not tasks
        return packed
    refused = [p for p in packed.summary.get("problems", []) if "was refused" in p][:5]
    if refused:  # a packed archive broke a rule: say which, rather than only that no task was found
        empty.summary["no_tasks"] = " ".join([empty.summary.get("no_tasks") or "", *refused]).strip()
    save_index(env.store, empty)  # rows of another kind: the dataset stays Harbor's, saying it holds no task
    return empty
