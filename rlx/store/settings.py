"""The admin settings (STORAGE_DIR/admin/settings.json), shared by every process: what the file may hold.

    {
      "hidden": ["org/name", "space:org/name"],          environments never shown
      "pinned": ["org/name"],                            first in trending, in this order
      "featured": ["org/name"],                          indexed first by the indexer
      "collections": {"terminal": {"title": "Terminal tasks", "items": ["org/name", "space:org/x"]}},
      "banner": {"text": "Built by ...", "href": "https://...", "id": "2026-11"},
      "rollouts": {"enabled": true, "per_visitor_per_hour": 10, "agents": ["terminus-2"],
                   "judges": ["openai/gpt-oss-120b"]},      the judge models a visitor may pick (empty: defaults)
      "stop": {"<run id>": "2026-12-02T01:00:00Z"}       runs an admin asked to stop (their workers do it)
    }

Environment ids: a dataset is "org/name", a Space "space:org/name". `parse_settings` checks every field's type,
and the whole file's depth, and raises SettingsError with a sentence naming the first field that is wrong: one bad
field refuses the whole file, so the explorer keeps its last good settings rather than half of a broken edit
(rlx/store/settings_file.py reads the file). Unknown top-level keys are ignored, for a newer admin's file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from rlx.sources.names import ENV_ID

COLLECTION_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}\Z")
RUN_ID = re.compile(r"^[a-z0-9]{12}\Z")
MAX_PER_HOUR = 1000
MAX_IDS = 5000  # per list: far above what an admin curates by hand, far below what could slow a request
MAX_COLLECTIONS = 200
MAX_STOPS = 1000
MAX_JUDGES = 16
# Text models Inference Providers' router serves, open-weights and good at following a grading prompt; an admin
# who wants others lists them under `rollouts.judges`.
DEFAULT_JUDGES = ("openai/gpt-oss-120b", "Qwen/Qwen3-235B-A22B-Instruct-2507")
JUDGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}\Z")
MAX_DEPTH = 5  # the deepest the format goes: {"collections": {key: {"items": [id]}}}


class SettingsError(ValueError):
    """The file is refused; the message names the field and what it should be."""


@dataclass(frozen=True)
class Collection:
    key: str
    title: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class RolloutSettings:
    """The admin's switch and limits for running agents (rlx/runs/admin_rules.py applies them)."""

    enabled: bool = True
    per_visitor_per_hour: int = 10
    agents: tuple[str, ...] = ()  # agents offered; empty: every agent the app knows
    # The judge models a visitor may pick for a model-graded task (rlx/runs/judges.py); empty: DEFAULT_JUDGES.
    judges: tuple[str, ...] = ()

    @property
    def judge_pool(self) -> tuple[str, ...]:
        return self.judges or DEFAULT_JUDGES


@dataclass(frozen=True)
class AdminSettings:
    hidden: frozenset[str] = frozenset()
    pinned: tuple[str, ...] = ()
    featured: tuple[str, ...] = ()
    collections: dict[str, Collection] = field(default_factory=dict)
    banner: dict | None = None  # {"text", "href", "id"}
    rollouts: RolloutSettings = field(default_factory=RolloutSettings)
    stop: dict[str, str] = field(default_factory=dict)  # run id -> when an admin asked

    @classmethod
    def from_json(cls, data) -> "AdminSettings":
        return parse_settings(data)


def parse_settings(data) -> AdminSettings:
    """The settings in a parsed file, every field checked; raises SettingsError."""
    if not isinstance(data, dict):
        raise SettingsError("the file must hold one JSON object ({...}).")
    if depth_of(data) > MAX_DEPTH:
        raise SettingsError(f"it nests deeper than the format does ({MAX_DEPTH} levels).")
    return AdminSettings(
        hidden=frozenset(_ids(data, "hidden")), pinned=tuple(_ids(data, "pinned")),
        featured=tuple(_ids(data, "featured")), collections=_collections(data.get("collections")),
        banner=_banner(data.get("banner")), rollouts=_rollouts(data.get("rollouts")), stop=_stops(data.get("stop")),
    )


def depth_of(value) -> int:
    """How deep containers nest in `value`, walked without recursion (a parsed file can be very deep)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            todo.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _ids(data: dict, name: str) -> list[str]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_IDS:
        raise SettingsError(f"`{name}` must be a list of at most {MAX_IDS} environment ids.")
    for n, item in enumerate(value):
        if not isinstance(item, str) or not ENV_ID.match(item):
            raise SettingsError(f"`{name}[{n}]` is not an environment id (org/name or space:org/name).")
    return value


def _collections(value) -> dict[str, Collection]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_COLLECTIONS:
        raise SettingsError(f"`collections` must be an object of at most {MAX_COLLECTIONS} collections, "
                            "{\"key\": {\"title\": ..., \"items\": [...]}}.")
    found = {}
    for key, entry in value.items():
        if not COLLECTION_KEY.match(key):
            raise SettingsError(f"the collection key {key[:48]!r} is not lowercase letters, digits and dashes.")
        if not isinstance(entry, dict) or not isinstance(entry.get("title", ""), str):
            raise SettingsError(f"`collections.{key}` must be an object with a text `title` and a list `items`.")
        items = _ids({"items": entry.get("items")}, "items") if entry.get("items") is not None else []
        found[key] = Collection(key, (entry.get("title") or key)[:80], tuple(items))
    return found


def _banner(value) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(value.get(k) or "", str) for k in ("text", "href", "id")):
        raise SettingsError("`banner` must be an object with a text `text` and optional text `href` and `id`.")
    if not value.get("text"):
        return None
    href = value.get("href") or ""
    if href and (urlparse(href).scheme not in ("http", "https") or not urlparse(href).netloc):
        href = ""  # only a plain web link: no javascript:, no relative trickery
    return {"text": value["text"][:200], "href": href or None, "id": (value.get("id") or "banner")[:40]}


def _rollouts(value) -> RolloutSettings:
    if value is None:
        return RolloutSettings()
    if not isinstance(value, dict):
        raise SettingsError("`rollouts` must be an object: {\"enabled\", \"per_visitor_per_hour\", \"agents\", "
                            "\"judges\"}.")
    enabled = value.get("enabled", True)
    if not isinstance(enabled, bool):
        raise SettingsError("`rollouts.enabled` must be true or false.")
    per_hour = value.get("per_visitor_per_hour", RolloutSettings.per_visitor_per_hour)
    if isinstance(per_hour, bool) or not isinstance(per_hour, int) or not 0 <= per_hour <= MAX_PER_HOUR:
        raise SettingsError(f"`rollouts.per_visitor_per_hour` must be a whole number from 0 to {MAX_PER_HOUR}.")
    agents = value.get("agents") or []
    if not isinstance(agents, list) or len(agents) > 32 or not all(
            isinstance(a, str) and COLLECTION_KEY.match(a) for a in agents):
        raise SettingsError("`rollouts.agents` must be a list of at most 32 agent names such as terminus-2.")
    judges = value.get("judges") or []
    if not isinstance(judges, list) or len(judges) > MAX_JUDGES or not all(
            isinstance(j, str) and JUDGE_ID.match(j) for j in judges):
        raise SettingsError(f"`rollouts.judges` must be a list of at most {MAX_JUDGES} model ids such as "
                            f"{DEFAULT_JUDGES[0]} (org/name, as Inference Providers' router names them).")
    return RolloutSettings(enabled=enabled, per_visitor_per_hour=per_hour, agents=tuple(agents),
                           judges=tuple(dict.fromkeys(judges)))


def _stops(value) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_STOPS or not all(
            RUN_ID.match(k) and isinstance(v, str) and len(v) <= 40 for k, v in value.items()):
        raise SettingsError(f"`stop` must map at most {MAX_STOPS} run ids to the time the stop was asked.")
    return dict(value)
