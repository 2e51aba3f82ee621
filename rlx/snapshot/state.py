"""What the indexer remembers between runs (STORAGE_DIR/indexer-state.json): the builds that failed.

    {"failed": {"org/name": {"revision": "abc…", "at": 1764504000.0, "error": "The Hub answered 400 …"}}}

A build that failed is not tried again at the same revision for a day, so one broken repository cannot eat every
run's budget; a new revision, or the day passing, makes it a candidate again. A build stopped by an outage of the
source (`"outage": true`) says nothing about the repository: it is tried again at the next run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from rlx.store import read_json, write_json

log = logging.getLogger("rlx.indexer")

RETRY_AFTER_S = 24 * 60 * 60
_ERROR_CHARS = 300


@dataclass
class Failure:
    revision: str | None
    at: float  # seconds since the epoch, from the indexer's clock
    error: str
    outage: bool = False


@dataclass
class IndexerState:
    failed: dict[str, Failure] = field(default_factory=dict)

    def failed_recently(self, env_id: str, revision: str | None, now: float) -> bool:
        """Whether this revision's build failed less than a day ago (an outage of the source does not count)."""
        failure = self.failed.get(env_id)
        return (failure is not None and not failure.outage and failure.revision == revision
                and now - failure.at < RETRY_AFTER_S)

    def record_failure(self, env_id: str, revision: str | None, now: float, error: str, outage: bool = False) -> None:
        self.failed[env_id] = Failure(revision, now, " ".join(error.split())[:_ERROR_CHARS], outage)

    def record_success(self, env_id: str) -> None:
        self.failed.pop(env_id, None)

    def forget_unlisted(self, listed_ids: set[str]) -> None:
        """Drop entries for datasets no longer in the listing, so the file does not grow forever."""
        for env_id in [e for e in self.failed if e not in listed_ids]:
            del self.failed[env_id]


def load_state(path: Path) -> IndexerState:
    """The state on disk; an unreadable file counts as empty (at worst, a failed build is tried again)."""
    try:
        data = read_json(path, default={}) or {}
        failed = {env_id: Failure(item.get("revision"), float(item["at"]), str(item.get("error") or ""),
                                  bool(item.get("outage")))
                  for env_id, item in (data.get("failed") or {}).items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("indexer.state_unreadable path=%s reason=%s (starting afresh)", path, exc)
        return IndexerState()
    return IndexerState(failed)


def save_state(path: Path, state: IndexerState) -> None:
    write_json(path, {"failed": {env_id: {"revision": f.revision, "at": f.at, "error": f.error,
                                          **({"outage": True} if f.outage else {})}
                                 for env_id, f in sorted(state.failed.items())}})
