"""An environment as adapters see it: its record, where to read it, where to store what we learn."""

from __future__ import annotations

from dataclasses import dataclass

from rlx.sources.base import RepoRecord, Source
from rlx.store import Store


@dataclass
class Env:
    record: RepoRecord
    source: Source
    store: Store
    token: str | None = None  # the visitor's (or the job's) token; never the server's own for a visitor

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def repo_type(self):
        return self.record.repo_type

    @property
    def revision(self) -> str | None:
        return self.record.sha

    def read_text(self, path: str, max_bytes: int = 512 * 1024) -> str:
        data = self.source.read_file(self.repo_type, self.id, path, revision=self.revision, token=self.token,
                                     max_bytes=max_bytes)
        return data.decode("utf-8", errors="replace")
