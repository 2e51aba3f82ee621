"""Metadata keys as labels a person reads ("expert_time_estimate_min" -> "Expert time estimate (minutes)").

Pages show the label with the key beside it (people search by the key, and the dataset's docs use it); a few
keys common in task.toml metadata and row columns have a label of their own, every other key is spelled out.
"""

from __future__ import annotations

import re

KNOWN = {
    "author_name": "Author",
    "author_email": "Author's email",
    "expert_time_estimate_min": "Expert's time (minutes)",
    "junior_time_estimate_min": "Junior's time (minutes)",
    "max_turns": "Turn limit",
    "num_turns": "Turns recorded",
    "max_tokens": "Token limit",
    "max_output_tokens": "Output token limit",
    "top_p": "Top-p",
}
# Words written in capitals, and units a trailing word stands for.
_UPPER = {"id": "ID", "url": "URL", "api": "API", "cpu": "CPU", "gpu": "GPU", "ram": "RAM", "llm": "LLM",
          "json": "JSON", "http": "HTTP", "mcp": "MCP", "sql": "SQL", "os": "OS", "ui": "UI", "mimo": "MiMo",
          "uuid": "UUID"}
_UNITS = {"sec": "seconds", "secs": "seconds", "s": "seconds", "ms": "milliseconds", "min": "minutes",
          "mins": "minutes", "mb": "MB", "gb": "GB", "kb": "KB", "usd": "USD", "pct": "%"}
_SPLIT = re.compile(r"[_\-.\s]+|(?<=[a-z0-9])(?=[A-Z])")


def readable(key: str) -> str:
    """The label for a key: its own when it has one, else its words in sentence case, a unit in brackets."""
    key = str(key)
    if key in KNOWN:
        return KNOWN[key]
    words = [w.lower() for w in _SPLIT.split(key) if w]
    if not words:
        return key
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    words = [_UPPER.get(w, w) for w in words]
    words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words) + (f" ({unit})" if unit else "")


def labelled(pairs) -> list[tuple]:
    """(key, value) pairs as kv rows (label, value, key): the block keeps the key for the page to show, unless
    the label already reads as the key ("Difficulty" for difficulty)."""
    rows = []
    for key, value in pairs:
        label = readable(key)
        rows.append((label, value) if label.lower() == str(key).lower() else (label, value, str(key)))
    return rows
