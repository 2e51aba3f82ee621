"""The MiMo release adapter: Xiaomi's MiMo RL release, recognised by its layout (layout.py).

It is the rows adapter plus what only the release has, so it subclasses it: every row is still a task read by
the MiMo row processor, with the rows adapter's refs (`<domain>/train/<i>`), paging, prev/next and row jumps.
On top: domains (tiles, facets, a treemap), the reward design across the release, each general task's folder
(systems, databases, workspace files, the rubric and its judge prompts) in the page and the file viewer, and
aliases to the Harbor conversions that name the release.
"""

from __future__ import annotations

import posixpath

from rlx.adapters import aliases as alias_rules
from rlx.adapters.blocks import to_text
from rlx.adapters.contract import FileView, Index, Withheld
from rlx.adapters.harbor.reader import is_text_name
from rlx.adapters.indexes import load_pack
from rlx.adapters.mimo import build, sections
from rlx.adapters.mimo.envfolder import DB_SUFFIXES, clean_verifier_meta
from rlx.adapters.mimo.layout import env_folder, is_release
from rlx.adapters.paths import safe_relpath
from rlx.adapters.rows.adapter import RowsAdapter
from rlx.adapters.withhold import mask_grader_script
from rlx.sources.errors import EntryNotFound, SourceError

FILE_SHOWN_MAX = 1024 * 1024
DB_WHY = "A SQLite database: its tables are described on the task page; its rows are not shown."


class MimoAdapter(RowsAdapter):
    key = "mimo"
    label = "MiMo release"
    index_version = 1
    always_confirm = True

    def score(self, record) -> float:
        if record.repo_type != "dataset" or "harbor" in record.tags:
            return 0.0
        # Only a reason to look (always_confirm: the layout decides; the look is one listing of the root). A name
        # or tag saying mimo looks first of all; any other dataset is looked at before the rows adapter's unsure
        # guesses, though after its sure one (a verl tag), so the scheduled indexer still needs no look for those.
        named = "mimo" in record.id.lower() or "mimo" in {t.lower() for t in record.tags}
        return 0.95 if named else 0.85

    def confirm(self, env) -> bool:
        kw = {"revision": env.revision, "token": env.token}
        try:
            entries = list(env.source.list_tree(env.repo_type, env.id, **kw))
            root = {e.path for e in entries if not e.is_dir}
            if "general" not in {e.path for e in entries if e.is_dir}:
                return False
            general = {e.path for e in env.source.list_tree(env.repo_type, env.id, path="general", **kw)}
        except (EntryNotFound, SourceError):
            return False
        return is_release(root, general)

    def kind_of_index(self, index: Index):
        return index.summary.get("kind") or False

    def build_index(self, env, progress=None) -> Index:
        return build.build_index(env, self.key, self.index_version, progress)

    def overview(self, env, index: Index):
        return sections.overview(index)

    def task(self, env, index: Index, ref: str):
        view = super().task(env, index, ref)
        row = _row(index, ref)
        if view is None or row is None or row.facets.get("domain") != "General":
            return view
        task_id = row.extra.get("instance_id", "")
        pack = load_pack(env.store, env.id) or {}
        folder = (pack.get("envs") or {}).get(task_id)
        view.sections += sections.folder_sections(task_id, folder, (pack.get("images") or {}).get(task_id))
        for where, why in ((folder or {}).get("rubric") or {}).get("withheld", []):
            view.withheld.append(Withheld(f"verifier_meta.json {where}", why))
        return view

    def find_ref(self, index: Index, name: str):
        return next((r.ref for r in index.rows if r.extra.get("instance_id") == name), None)

    def aliases(self, env, index: Index, ref: str):
        row = _row(index, ref)
        name = row.extra.get("instance_id") if row else None
        return alias_rules.in_conversions(env.store, index.summary.get("twins") or [], name)

    def mcp_tools(self, env):
        return [{"name": "reward_design", "description": "How each domain of the release is graded: the reward, "
                 "the judge, when a rollout is not scored, and the general rubrics' checks by method and tier.",
                 "inputSchema": {"type": "object", "properties": {}}}]

    def call_mcp_tool(self, env, index: Index, name: str, arguments: dict) -> str:
        if name != "reward_design":
            return super().call_mcp_tool(env, index, name, arguments)
        domains = index.summary.get("domains") or {}
        lines = ["Tasks by domain: " + ", ".join(f"{d} {n:,}" for d, n in domains.items()), ""]
        blocks = [sections.reward_table(), *sections.rubric_blocks(index.summary.get("rubric") or {})]
        return "\n".join(lines) + "\n\n".join(to_text(block) for block in blocks)

    # A general task's folder, in the file viewer

    def list_folder(self, env, index: Index, ref: str, path: str):
        folder, files = self._folder(env, index, ref)
        where = safe_relpath(path) if path else ""
        if folder is None or where is None:
            return None
        kinds = {p: t for p, t, _ in files}
        if where and kinds.get(where) != "directory":
            return None
        children = [(p, t, s) for p, t, s in files if posixpath.dirname(p) == where]
        return [{"path": p, "type": t, "size": s, "withheld": None}
                for p, t, s in sorted(children, key=lambda e: (e[1] != "directory", e[0]))]

    def read_file(self, env, index: Index, ref: str, path: str):
        folder, files = self._folder(env, index, ref)
        rel = safe_relpath(path)
        listed = {p: (t, s) for p, t, s in files}
        if folder is None or not rel or listed.get(rel, ("directory",))[0] != "file":
            return None
        size = listed[rel][1]
        if rel.lower().endswith(DB_SUFFIXES):
            return FileView(path=rel, binary=True, size=size, text=None, withheld=None)
        if size > FILE_SHOWN_MAX * 4:
            return FileView(path=rel, binary=not is_text_name(rel), size=size, truncated=True)
        data = env.source.read_file(env.repo_type, env.id, f"{folder}/{rel}", revision=env.revision,
                                    token=env.token, max_bytes=FILE_SHOWN_MAX * 4)
        if b"\x00" in data[:8192]:
            return FileView(path=rel, binary=True, size=size or len(data))
        text = data[:FILE_SHOWN_MAX].decode("utf-8", errors="replace")
        if rel == "verifier_meta.json":
            text = clean_verifier_meta(text)
        elif not rel.startswith("workspace/"):
            text, _ = mask_grader_script(text, rel)  # tools and verify scripts: answers written in them masked
        return FileView(path=rel, text=text, size=size or len(data), truncated=len(data) > FILE_SHOWN_MAX)

    def _folder(self, env, index: Index, ref: str):
        row = _row(index, ref)
        task_id = row.extra.get("instance_id", "") if row else ""
        entry = ((load_pack(env.store, env.id) or {}).get("envs") or {}).get(task_id)
        if entry is None:
            return None, []
        return env_folder(task_id), [tuple(f) for f in entry["files"]]


def _row(index: Index, ref: str):
    return next((r for r in index.rows if r.ref == ref), None)
