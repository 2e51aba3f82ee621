"""A local folder laid out like the Hub: `datasets/<org>/<name>/...` and `spaces/<org>/<name>/...`.

Each repository may carry `.hub.json`, what the Hub's API would say about it (likes, downloads, trendingScore,
createdAt, lastModified, private, gated, sha, sdk, runtime), and its README's YAML front matter is the card, as
on the Hub. A repository with neither still lists, with defaults. A folder has no history: its one revision is
"main", and its sha is a fingerprint of the files' names, sizes and modification times.

Fingerprinting walks the whole repository (a quarter of a second for 30,000 files), so it is done when a revision
is given out (repo_info, list_repos), at most once every REVISION_FRESH_S per repository, and never for a read: a
read at the revision last given out is served without looking at the rest of the folder. Only a read at another
revision makes the source look again (at most as often), and it is refused unless the folder now has that revision.
A folder edited between two fingerprints keeps its old sha until the next one: an index built meanwhile may mix
the two, and is rebuilt when the next repo_info gives the new sha.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Sequence

import yaml

from rlx.sources.base import FileEntry, RepoRecord, RepoType
from rlx.sources.cardtext import card_summary
from rlx.sources.errors import EntryNotFound, RepoNotFound, RevisionNotFound, SourceError, TooLarge
from rlx.sources.yamlsafe import load_bounded
from rlx.sources.names import REPO_ID

META_FILE = ".hub.json"
_SKIP = {META_FILE, ".git", ".gitattributes", "__pycache__", ".DS_Store"}
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", re.S)
_TYPE_DIRS = {"dataset": "datasets", "space": "spaces"}
# How long a repository's fingerprint is reused as its revision. Pages keep a record for 30 s anyway; this bounds the
# walks when many calls ask at once (the indexer, a burst of page views), and how long an edit goes unnoticed.
REVISION_FRESH_S = 5.0


@dataclass(frozen=True)
class _Revision:
    sha: str
    at: float  # the source's clock when it was read


def read_card(readme: str) -> dict:
    """The YAML front matter of a README, or {} when there is none or it does not parse."""
    match = _FRONT_MATTER.match(readme[:64_000])
    if not match:
        return {}
    try:
        card = load_bounded(match.group(1))
    except yaml.YAMLError:
        return {}
    return card if isinstance(card, dict) else {}


@lru_cache(maxsize=256)  # every build lists the same cards again, and so does each test's app
def _card_with_summary(text: str) -> dict:
    card = read_card(text)
    if text and not card.get("description"):
        card["description"] = card_summary(text)  # as the Hub does: the card's opening words
    return card


class FolderSource:
    kind = "folder"
    viewer = None  # a folder has no dataset viewer: its rows are read from the files

    def __init__(self, root: str | Path, clock: Callable[[], float] = time.monotonic):
        self.root = Path(root).resolve()
        self._clock = clock
        self._revisions: dict[Path, _Revision] = {}  # per repository folder: the revision last given out
        self._fingerprinting = threading.Lock()  # one walk at a time: concurrent askers share its answer

    def describe(self) -> str:
        return f"the folder {self.root}"

    def check(self) -> None:
        if not self.root.is_dir():
            raise SourceError(f"the source folder {self.root} does not exist.")
        if not any((self.root / d).is_dir() for d in _TYPE_DIRS.values()):
            raise SourceError(f"the source folder {self.root} has neither datasets/ nor spaces/ in it.")

    # Listing and info

    def list_repos(self, repo_type: RepoType, tags: Sequence[str], token: str | None = None) -> list[RepoRecord]:
        # A repository whose card carries no tags at all is listed too: on the Hub tags pick environments out of
        # millions of repositories, but a folder holds what its owner put there (a clone of a Harbor dataset
        # usually has no card tags), and the adapters still decide whether it is an environment.
        wanted = set(tags)
        records = [
            record
            for repo_id in self._repo_ids(repo_type)
            if (record := self._record(repo_type, repo_id))
            and (not wanted or not record.tags or wanted & set(record.tags))
        ]
        records.sort(key=lambda r: (-r.trending_score, r.id))
        return records

    def repo_info(self, repo_type: RepoType, repo_id: str, revision: str | None = None,
                  token: str | None = None) -> RepoRecord:
        self._check_revision(repo_type, repo_id, revision)
        return self._record(repo_type, repo_id)

    # Files

    def list_tree(self, repo_type: RepoType, repo_id: str, path: str = "", recursive: bool = False,
                  revision: str | None = None, token: str | None = None) -> Iterator[FileEntry]:
        self._check_revision(repo_type, repo_id, revision)
        repo = self._repo_dir(repo_type, repo_id)
        start = self._inside(repo, path)
        if not start.is_dir():
            raise EntryNotFound(f"{repo_id} has no folder {path!r}.")
        yield from self._walk(repo, start, recursive)

    def paths_info(self, repo_type: RepoType, repo_id: str, paths: Sequence[str], revision: str | None = None,
                   token: str | None = None) -> list[FileEntry]:
        self._check_revision(repo_type, repo_id, revision)
        repo = self._repo_dir(repo_type, repo_id)
        found = []
        for path in paths:
            try:
                target = self._inside(repo, path)
            except EntryNotFound:
                continue
            if target.is_dir():
                found.append(FileEntry(path=path.strip("/"), type="directory"))
            elif target.is_file():
                found.append(FileEntry(path=path.strip("/"), type="file", size=target.stat().st_size))
        return found

    def read_file(self, repo_type: RepoType, repo_id: str, path: str, revision: str | None = None,
                  token: str | None = None, max_bytes: int = 8 * 1024 * 1024) -> bytes:
        self._check_revision(repo_type, repo_id, revision)
        target = self._inside(self._repo_dir(repo_type, repo_id), path)
        if not target.is_file():
            raise EntryNotFound(f"{repo_id} has no file {path!r}.")
        size = target.stat().st_size
        if size > max_bytes:
            raise TooLarge(f"{path} in {repo_id} is {size:,} bytes, more than the {max_bytes:,} allowed.")
        return target.read_bytes()

    def local_path(self, repo_type: RepoType, repo_id: str, path: str) -> Path:
        """The file on this disk, for readers that seek (parquet row groups, JSON Lines offsets)."""
        target = self._inside(self._repo_dir(repo_type, repo_id), path)
        if not target.is_file():
            raise EntryNotFound(f"{repo_id} has no file {path!r}.")
        return target

    # Spaces' runtime: what `.hub.json` says (a folder runs nothing, so it cannot restart anything)

    def space_runtime(self, repo_id: str, token: str | None = None) -> dict:
        meta = _read_meta(self._repo_dir("space", repo_id) / META_FILE)
        runtime = meta.get("runtime") if isinstance(meta.get("runtime"), dict) else {}
        return {"stage": "NO_APP_FILE", **runtime}

    def restart_space(self, repo_id: str, token: str) -> dict:
        raise SourceError(f"{repo_id} is a folder on this machine; there is no Hub to restart it.")

    # Internals

    def _repo_ids(self, repo_type: RepoType) -> Iterator[str]:
        base = self.root / _TYPE_DIRS[repo_type]
        if not base.is_dir():
            return
        for org in sorted(base.iterdir()):
            if org.is_dir() and not org.name.startswith("."):
                for repo in sorted(org.iterdir()):
                    repo_id = f"{org.name}/{repo.name}"
                    if repo.is_dir() and REPO_ID.match(repo_id):
                        yield repo_id

    def _repo_dir(self, repo_type: RepoType, repo_id: str) -> Path:
        if not REPO_ID.match(repo_id or ""):
            raise RepoNotFound(f"{repo_id!r} is not a repository id (expected org/name).")
        folder = self.root / _TYPE_DIRS[repo_type] / repo_id
        if not folder.is_dir():
            raise RepoNotFound(f"there is no {repo_type} {repo_id} in this catalog.")  # never the server's path
        return folder

    def _inside(self, repo: Path, path: str) -> Path:
        """`path` resolved under `repo`, or EntryNotFound when it would leave it (`..`, absolute, symlinks)."""
        clean = (path or "").strip("/")
        if "\\" in clean or "\x00" in clean or any(part in ("..", ".") for part in clean.split("/") if clean):
            raise EntryNotFound(f"{path!r} is not a path inside the repository.")
        target = (repo / clean).resolve() if clean else repo
        if target != repo and repo not in target.parents:
            raise EntryNotFound(f"{path!r} is not a path inside the repository.")
        if clean and any(part in _SKIP for part in clean.split("/")):
            raise EntryNotFound(f"{path!r} is not a file of the repository.")
        return target

    def _walk(self, repo: Path, folder: Path, recursive: bool) -> Iterator[FileEntry]:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name in _SKIP:
                continue
            rel = os.path.relpath(entry.path, repo).replace(os.sep, "/")
            if entry.is_dir(follow_symlinks=False):
                yield FileEntry(path=rel, type="directory")
                if recursive:
                    yield from self._walk(repo, Path(entry.path), recursive)
            elif entry.is_file(follow_symlinks=False):
                yield FileEntry(path=rel, type="file", size=entry.stat(follow_symlinks=False).st_size)

    def _check_revision(self, repo_type: RepoType, repo_id: str, revision: str | None) -> None:
        if revision in (None, "main"):
            return
        folder = self._repo_dir(repo_type, repo_id)
        given = self._revisions.get(folder)
        if given is not None and given.sha == revision:
            return  # the revision last given out: a read never walks the folder
        if revision != self._revision(folder, _read_meta(folder / META_FILE)):
            raise RevisionNotFound(f"{repo_id} has no revision {revision!r}.")

    def _revision(self, folder: Path, meta: dict) -> str:
        """The folder's revision: the sha its .hub.json states, else its fingerprint, reused while fresh."""
        if meta.get("sha"):
            return str(meta["sha"])
        seen = self._revisions.get(folder)
        if seen is None or self._clock() - seen.at >= REVISION_FRESH_S:
            with self._fingerprinting:
                seen = self._revisions.get(folder)
                if seen is None or self._clock() - seen.at >= REVISION_FRESH_S:  # nobody walked it meanwhile
                    seen = _Revision(_fingerprint(folder), self._clock())
                    self._revisions[folder] = seen
        return seen.sha

    def _record(self, repo_type: RepoType, repo_id: str) -> RepoRecord:
        folder = self._repo_dir(repo_type, repo_id)
        meta = _read_meta(folder / META_FILE)
        readme = folder / "README.md"
        text = readme.read_text(errors="replace")[:64_000] if readme.is_file() else ""
        card = copy.deepcopy(_card_with_summary(text))  # the record's own: callers may change it
        card_tags = card.get("tags") if isinstance(card.get("tags"), list) else []
        tags = tuple(dict.fromkeys(str(t) for t in [*card_tags, *(meta.get("tags") or [])]))
        modified = meta.get("lastModified") or _mtime_iso(folder)
        runtime = meta.get("runtime") if isinstance(meta.get("runtime"), dict) else {}
        return RepoRecord(
            id=repo_id,
            repo_type=repo_type,
            sha=self._revision(folder, meta),
            tags=tags,
            likes=int(meta.get("likes") or 0),
            downloads=int(meta.get("downloads") or 0),
            trending_score=float(meta.get("trendingScore") or 0),
            created_at=meta.get("createdAt") or modified,
            last_modified=modified,
            private=bool(meta.get("private")),
            gated=bool(meta.get("gated")),
            card=card,
            sdk=meta.get("sdk") or card.get("sdk"),
            stage=runtime.get("stage"),
            host=meta.get("host"),
        )


def _read_meta(path: Path) -> dict:
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise SourceError(f"{path} is not valid JSON ({exc}).") from None
    return meta if isinstance(meta, dict) else {}


def _mtime_iso(folder: Path) -> str:
    return datetime.fromtimestamp(folder.stat().st_mtime, tz=timezone.utc).isoformat(timespec="seconds")


def _fingerprint(folder: Path) -> str:
    """A stable id for the folder's current content: names, sizes and mtimes of every file (symlinks not followed).
    One scandir per folder, its entries' stats from the same pass: twice as fast as os.walk plus os.stat."""
    digest = hashlib.sha1()
    pending = [(str(folder), "")]
    while pending:
        path, rel = pending.pop()
        try:
            with os.scandir(path) as listing:
                entries = sorted((e for e in listing if e.name not in _SKIP), key=lambda e: e.name)
        except OSError:  # vanished or unreadable while we looked: its absence is part of the fingerprint
            digest.update(f"{rel}:unreadable\n".encode())
            continue
        lines = []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, f"{rel}{entry.name}/"))
                lines.append(f"{rel}{entry.name}/\n")
            else:
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:  # removed between the listing and the stat
                    continue
                lines.append(f"{rel}{entry.name}:{stat.st_size}:{stat.st_mtime_ns}\n")
        digest.update("".join(lines).encode())
    return digest.hexdigest()
