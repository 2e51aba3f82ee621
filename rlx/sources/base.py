"""The interface every source of environments implements, and the records it returns.

A source answers in the Hub's terms (repositories, revisions, trees, files), whether it reads the Hub itself
(`HubSource`) or a folder laid out like it (`FolderSource`). Everything above the sources speaks only these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Literal, Protocol, Sequence

RepoType = Literal["dataset", "space"]


@dataclass(frozen=True)
class RepoRecord:
    """One repository as a listing or an info call describes it."""

    id: str  # "org/name"
    repo_type: RepoType
    sha: str | None = None
    tags: tuple[str, ...] = ()
    likes: int = 0
    downloads: int = 0
    trending_score: float = 0.0
    created_at: str | None = None  # ISO 8601, UTC
    last_modified: str | None = None
    private: bool = False
    gated: bool = False  # False, or True for "auto"/"manual"
    card: dict = field(default_factory=dict)  # README front matter: pretty_name, license, tags, ...
    sdk: str | None = None  # Spaces only: docker, gradio, static, ...
    stage: str | None = None  # Spaces only: RUNNING, SLEEPING, ...
    host: str | None = None  # Spaces only: where the app answers

    @property
    def org(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    @property
    def pretty_name(self) -> str:
        return str(self.card.get("pretty_name") or self.name)


@dataclass(frozen=True)
class FileEntry:
    """One entry of a tree listing: a file or a folder, its path relative to the repository root."""

    path: str
    type: Literal["file", "directory"]
    size: int = 0
    oid: str | None = None

    @property
    def is_dir(self) -> bool:
        return self.type == "directory"


class Source(Protocol):
    """Where environments come from. Every call takes the visitor's token (None: anonymous)."""

    kind: str  # "folder" or "hub"

    def describe(self) -> str:
        """One line saying what this source reads, for logs and /readyz."""

    def check(self) -> None:
        """Raise SourceError with one clear sentence if the source cannot be used at all."""

    def list_repos(self, repo_type: RepoType, tags: Sequence[str], token: str | None = None) -> list[RepoRecord]:
        """Repositories carrying any of `tags` (one query per tag, merged by id), trending first."""

    def repo_info(
        self, repo_type: RepoType, repo_id: str, revision: str | None = None, token: str | None = None
    ) -> RepoRecord:
        """One repository's record; RepoNotFound when absent or private to others."""

    def list_tree(
        self,
        repo_type: RepoType,
        repo_id: str,
        path: str = "",
        recursive: bool = False,
        revision: str | None = None,
        token: str | None = None,
    ) -> Iterator[FileEntry]:
        """Entries under `path` (one level, or all levels), paginated transparently."""

    def paths_info(
        self,
        repo_type: RepoType,
        repo_id: str,
        paths: Sequence[str],
        revision: str | None = None,
        token: str | None = None,
    ) -> list[FileEntry]:
        """Entries for the given paths that exist (missing ones are left out), batched by the source."""

    def read_file(
        self,
        repo_type: RepoType,
        repo_id: str,
        path: str,
        revision: str | None = None,
        token: str | None = None,
        max_bytes: int = 8 * 1024 * 1024,
    ) -> bytes:
        """A file's bytes at `revision`; EntryNotFound when absent; at most `max_bytes` (larger: TooLarge)."""
