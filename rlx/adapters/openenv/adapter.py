"""Spaces through the environment contract: the card, what the repository declares, and its files, drawn with
the same blocks and file viewer as datasets. A Space's tasks are live (its Task API), so its index holds no
rows; what the running server offers comes from rlx.live and is drawn by rlx.adapters.openenv.live_sections.
"""

from __future__ import annotations

import posixpath
import re
from datetime import datetime, timezone

from rlx.adapters import blocks
from rlx.adapters.contract import Adapter, FileView, Index, Section
from rlx.adapters.openenv import live_tasks
from rlx.adapters.paths import safe_relpath
from rlx.adapters.withhold.file_rules import withheld_file_reason
from rlx.sources.errors import EntryNotFound, SourceError
from rlx.sources.folder import read_card

MAX_FILES = 3000  # a Space's tree; vendored caches beyond this are not listed
MAX_SHOWN_BYTES = 1024 * 1024
SKIPPED_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", ".mypy_cache", ".pytest_cache"}
BINARY_EXTENSIONS = {"png", "jpg", "jpeg", "gif", "webp", "ico", "pdf", "zip", "gz", "tar", "whl", "so", "bin",
                     "pt", "pth", "safetensors", "onnx", "parquet", "arrow", "npy", "npz", "pkl", "mp3", "mp4",
                     "wav", "ogg", "ttf", "woff", "woff2", "sqlite", "db"}
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*(\n|\Z)", re.S)


class SpaceAdapter(Adapter):
    key = "space"
    label = "Space"
    index_version = 1

    def score(self, record) -> float:
        return 1.0 if record.repo_type == "space" else 0.0

    def build_index(self, env, progress=None) -> Index:
        """The Space's files (a small tree, listed in one call); no task rows."""
        entries, error = [], None
        try:
            for entry in env.source.list_tree("space", env.id, recursive=True, revision=env.revision,
                                              token=env.token):
                if any(part in SKIPPED_DIRS for part in entry.path.split("/")):
                    continue
                entries.append([entry.path, entry.type, entry.size])
                if len(entries) >= MAX_FILES:
                    error = f"Only the first {MAX_FILES:,} files are listed."
                    break
        except SourceError as exc:
            error = str(exc)
        return Index(env_id=env.id, adapter=self.key, revision=env.revision, version=self.index_version,
                     built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), complete=True, rows=[],
                     summary={"files": entries}, error=error)

    def overview(self, env, index: Index) -> list[Section]:
        """The card (its README, rendered safely) and what the repository declares."""
        sections = []
        readme = self._text(env, "README.md")
        body = _FRONT_MATTER.sub("", readme or "", count=1).strip()
        if body:
            sections.append(Section("card", "Card", [blocks.markdown(body)]))
        declared = self._declared(env, readme or "")
        if declared:
            sections.append(Section("declared", "What its files declare", [blocks.kv(declared)]))
        return sections

    def task(self, env, index, ref):
        return None  # a Space's tasks are served live by its Task API: live_task below

    # A Space's live tasks (rlx.adapters.openenv.live_tasks): what its last check advertised, read by ref.

    def live_task_ref(self, report: dict | None, ref: str):
        """The advertised task `ref` names ({env, split, index}), or None."""
        return live_tasks.parse_ref(report, ref)

    def live_task_refs(self, report: dict | None, cap: int):
        """Up to `cap` (ref, task) of the advertised tasks, for the Space's page and the sitemap."""
        return live_tasks.listed_refs(report, cap)

    def live_task(self, report: dict | None, task_ref, task):
        """The task its server answered as a TaskView, answers withheld as a dataset row's are."""
        return live_tasks.task_view(report, task_ref, task)

    def list_folder(self, env, index: Index, ref: str, path: str):
        folder = safe_relpath(path)
        if folder is None:
            return None
        files = index.summary.get("files") or []
        if folder and not any(p == folder and t == "directory" for p, t, _ in files):
            return None
        children = [(p, t, s) for p, t, s in files if posixpath.dirname(p) == folder]
        children.sort(key=lambda e: (e[1] != "directory", e[0]))
        return [{"path": p, "type": t, "size": s, "withheld": withheld_file_reason(p, is_dir=t == "directory")}
                for p, t, s in children]

    def read_file(self, env, index: Index, ref: str, path: str):
        rel = safe_relpath(path)
        listed = {p: (t, s) for p, t, s in index.summary.get("files") or []}
        if not rel or listed.get(rel, ("directory",))[0] != "file":
            return None
        size = listed[rel][1]
        reason = withheld_file_reason(rel)
        if reason:
            return FileView(path=rel, withheld=reason, size=size)
        if rel.rsplit(".", 1)[-1].lower() in BINARY_EXTENSIONS:
            return FileView(path=rel, binary=True, size=size)
        if size > 8 * MAX_SHOWN_BYTES:
            return FileView(path=rel, size=size)
        try:
            data = env.source.read_file("space", env.id, rel, revision=env.revision, token=env.token,
                                        max_bytes=8 * MAX_SHOWN_BYTES)
        except EntryNotFound:
            return None
        if b"\x00" in data[:8192]:
            return FileView(path=rel, binary=True, size=size)
        return FileView(path=rel, text=data[:MAX_SHOWN_BYTES].decode("utf-8", errors="replace"), size=size,
                        truncated=len(data) > MAX_SHOWN_BYTES)

    # Internals

    def _text(self, env, path: str) -> str | None:
        try:
            return env.read_text(path, max_bytes=256 * 1024)
        except SourceError:
            return None

    def _declared(self, env, readme: str) -> list:
        """Facts the repository states about itself (not checked against the running server)."""
        card = read_card(readme)
        manifest = read_card("---\n" + (self._text(env, "openenv.yaml") or "") + "\n---\n")
        return [
            ("SDK", card.get("sdk")),
            ("App port", card.get("app_port")),
            ("Web page path", card.get("base_path")),
            ("OpenEnv manifest", "openenv.yaml" if manifest else None),
            ("Environment name", manifest.get("name")),
            ("Server app", manifest.get("app")),
            ("Tags", [str(t) for t in card.get("tags") or []][:12] if isinstance(card.get("tags"), list) else None),
            ("License", card.get("license")),
        ]
