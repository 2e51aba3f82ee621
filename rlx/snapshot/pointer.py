"""The pointer file (LATEST.v<SCHEMA>.json): its fields, checked before anything it names is touched."""

from __future__ import annotations

import json
import re

from rlx.snapshot.schema import SCHEMA

DB_NAME = re.compile(r"catalog-[A-Za-z0-9._-]{1,120}\.db")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class Rejected(Exception):
    """A pointer or the database it names is unusable; the message says why, in one sentence."""


def parse_pointer(raw: bytes) -> dict:
    """The pointer's fields, checked; Rejected with the reason when anything is off."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise Rejected("the pointer is not JSON.") from None
    if not isinstance(value, dict):
        raise Rejected("the pointer is not a JSON object.")
    name = value.get("db")
    if not isinstance(name, str) or ".." in name or "/" in name or "\\" in name or not DB_NAME.fullmatch(name):
        raise Rejected(f"the pointer names {name!r}, which is not a snapshot file name.")
    if not isinstance(value.get("sha256"), str) or not _SHA256.fullmatch(value["sha256"]):
        raise Rejected("the pointer's sha256 is not a hex digest.")
    if not _count(value.get("size")) or value["size"] == 0:
        raise Rejected("the pointer's size is not a positive number of bytes.")
    if value.get("schema") != SCHEMA:
        raise Rejected(f"the pointer is for schema {value.get('schema')!r}, not {SCHEMA}.")
    counts = value.get("counts")
    if not isinstance(counts, dict) or not all(_count(counts.get(k)) for k in ("envs", "tasks")):
        raise Rejected("the pointer's counts are missing or malformed.")
    return {**value, "built_at": str(value.get("built_at") or "")}


def named_db(raw: bytes) -> str | None:
    """The database a rejected pointer names, if it names one: it is not trusted as a fallback either."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return value["db"] if isinstance(value, dict) and isinstance(value.get("db"), str) else None


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
