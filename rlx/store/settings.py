"""The admin settings file (STORAGE_DIR/admin/settings.json), shared by every process and re-read when it changes.

    {
      "hidden": ["org/name", "space:org/name"],          environments never shown
      "pinned": ["org/name"],                            first in trending, in this order
      "featured": ["org/name"],                          indexed first by the indexer
      "collections": {"terminal": {"title": "Terminal tasks", "items": ["org/name", "space:org/x"]}},
      "banner": {"text": "Built by ...", "href": "https://...", "id": "2026-11"},
      "rollouts": {"enabled": true, "per_visitor_per_hour": 10, "agents": ["terminus-2"]}
    }

Environment ids: a dataset is "org/name", a Space "space:org/name". A file that does not parse keeps the last good
settings (one log line), so a half-saved edit never empties the site.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

log = logging.getLogger("rlx.settings")
ENV_ID = re.compile(r"^(space:)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
COLLECTION_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")
MAX_PER_HOUR = 1000


@dataclass(frozen=True)
class Collection:
    key: str
    title: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class RolloutSettings:
    """The admin's switch and limits for running agents (the runs code reads them)."""

    enabled: bool = True
    per_visitor_per_hour: int = 10
    agents: tuple[str, ...] = ()  # agents offered; empty: every agent the app knows

    @classmethod
    def from_json(cls, value) -> "RolloutSettings":
        if not isinstance(value, dict):
            return cls()
        try:
            per_hour = max(0, min(int(value.get("per_visitor_per_hour", 10)), MAX_PER_HOUR))
        except (TypeError, ValueError):
            per_hour = 10
        agents = tuple(a for a in value.get("agents") or [] if isinstance(a, str) and COLLECTION_KEY.match(a))[:32]
        return cls(enabled=value.get("enabled", True) is not False, per_visitor_per_hour=per_hour, agents=agents)


@dataclass(frozen=True)
class AdminSettings:
    hidden: frozenset[str] = frozenset()
    pinned: tuple[str, ...] = ()
    featured: tuple[str, ...] = ()
    collections: dict[str, Collection] = field(default_factory=dict)
    banner: dict | None = None  # {"text", "href", "id"}
    rollouts: "RolloutSettings" = field(default_factory=lambda: RolloutSettings())

    @classmethod
    def from_json(cls, data: dict) -> "AdminSettings":
        if not isinstance(data, dict):
            raise ValueError("the settings file must hold a JSON object")
        collections = {}
        for key, value in (data.get("collections") or {}).items():
            if COLLECTION_KEY.match(str(key)) and isinstance(value, dict):
                items = tuple(i for i in value.get("items") or [] if isinstance(i, str) and ENV_ID.match(i))
                collections[key] = Collection(key, str(value.get("title") or key)[:80], items)
        return cls(
            hidden=frozenset(_ids(data.get("hidden"))),
            pinned=tuple(_ids(data.get("pinned"))),
            featured=tuple(_ids(data.get("featured"))),
            collections=collections,
            banner=_banner(data.get("banner")),
            rollouts=RolloutSettings.from_json(data.get("rollouts")),
        )


def _ids(value) -> list[str]:
    return [v for v in value or [] if isinstance(v, str) and ENV_ID.match(v)] if isinstance(value, list) else []


def _banner(value) -> dict | None:
    if not isinstance(value, dict) or not value.get("text"):
        return None
    href = str(value.get("href") or "")
    if href and (urlparse(href).scheme not in ("http", "https") or not urlparse(href).netloc):
        href = ""  # only a plain web link: no javascript:, no relative trickery
    return {"text": str(value["text"])[:200], "href": href or None, "id": str(value.get("id") or "banner")[:40]}


class SettingsFile:
    """Reads the file when it changes (a new file, modification time or size); otherwise answers from memory."""

    def __init__(self, path: Path):
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._settings = AdminSettings()
        self._lock = threading.Lock()

    def get(self) -> AdminSettings:
        try:
            stat = self.path.stat()
            seen = (stat.st_mtime_ns, stat.st_size, stat.st_ino)  # every save is a new file (rename)
        except FileNotFoundError:
            seen = None
        if seen == self._seen:
            return self._settings
        with self._lock:
            if seen != self._seen:
                self._settings = self._read(seen)
                self._seen = seen
        return self._settings

    def _read(self, seen) -> AdminSettings:
        if seen is None:
            return AdminSettings()
        try:
            return AdminSettings.from_json(json.loads(self.path.read_text()))
        except (OSError, ValueError) as exc:
            log.warning("settings.rejected path=%s reason=%s (keeping the last good settings)", self.path, exc)
            return self._settings
