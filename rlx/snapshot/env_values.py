"""One environment's snapshot row, made from its listing record: the clipped heading and brief, the tags, the
search words, and the numbers that move every hour."""

from __future__ import annotations

from rlx.catalog import words
from rlx.snapshot.dataset_rows import MAX_TAGS, clip, strings_json
from rlx.sources.base import RepoRecord

# Bounds on what one environment row may carry, so a strange card cannot bloat the file (the task rows' bounds
# are in dataset_rows.py).
HEADING_CHARS, ENV_BRIEF_CHARS = 200, 240

ENV_COLUMNS = ("rowid, env_key, id, key, repo_type, kind, heading, brief, likes, downloads, trending, created, "
               "modified, task_count, tags, sdk, stage, search_blob")
INSERT_ENVS = f"INSERT INTO envs ({ENV_COLUMNS}) VALUES ({', '.join('?' * 18)})"


def env_values(record: RepoRecord, env_id: str, kind: str, task_count: int, before: tuple | None = None
               ) -> tuple[tuple, list[str]]:
    """The environment's row (without its rowid and key) and its plain tags. `before` is its (heading, brief, tags,
    search_blob) in the previous snapshot: while the card's text is the same, so are its words."""
    heading, brief, tags = card_text(record, before)
    tags_json = strings_json(tags)
    plain_tags = plain(tags)
    if before is not None and before[:3] == (heading, brief, tags_json):
        blob = before[3]
    else:
        blob = words.blob(heading, brief, record.id, " ".join(plain_tags))
    return (env_id, record.id, record.repo_type, kind, heading, brief, *counters(record), record.created_at,
            record.last_modified, task_count, tags_json, record.sdk, record.stage, blob), plain_tags


def card_text(record: RepoRecord, before: tuple | None = None) -> tuple[str, str, list[str]]:
    """The card's heading and brief, clipped, and its tags (each once, at most MAX_TAGS). `before` starts with the
    heading and brief the previous snapshot holds."""
    card = record.card
    heading = clipped(record.pretty_name, HEADING_CHARS, before and before[0])
    brief = clipped(card.get("short_description") or card.get("description"), ENV_BRIEF_CHARS, before and before[1])
    return heading, brief, list(dict.fromkeys(map(str, record.tags)))[:MAX_TAGS]


def plain(tags: list[str]) -> list[str]:
    """The tags a visitor filters by: the Hub's machine tags ("license:mit") left out."""
    return [t for t in tags if t and ":" not in t]


def counters(record: RepoRecord) -> tuple[int, int, float]:
    """Likes, downloads and trending score, as stored."""
    return int(record.likes or 0), int(record.downloads or 0), float(record.trending_score or 0.0)


def clipped(text, limit: int, kept: str | None) -> str:
    """clip(text, limit); `kept` is what the previous snapshot holds. A clipped text clips to itself (single
    spaces, within the limit), so a text equal to it needs no clipping."""
    if kept is not None and text == kept and len(kept) <= limit:
        return kept
    return clip(text, limit)
