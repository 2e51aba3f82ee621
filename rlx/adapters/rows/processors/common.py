"""Small pieces every processor uses: chats, short texts, titles, facet values and the leftover fields."""

from __future__ import annotations

import json
from typing import Any, Iterable

from rlx.adapters import blocks as b
from rlx.adapters.contract import Block, Section, Withheld
from rlx.adapters.rows.processors.answers import parse_nested_text

TITLE_MAX = 90
BRIEF_MAX = 600
FACET_MAX = 60  # a facet value longer than this is not a category


def nested(value: Any) -> Any:
    """A cell as nested data: JSON or Python-literal text parsed (never run), anything else as it is."""
    if isinstance(value, str):
        parsed = parse_nested_text(value)
        return value if parsed is None else parsed
    return value


def as_text(value: Any) -> str:
    """Any cell as display text: strings as they are, everything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return f"({len(value):,} bytes of binary data)"
    return json.dumps(value, ensure_ascii=False, default=str)


def content_text(content: Any) -> str:
    """A chat message's content: a string, or OpenAI-style parts ([{type: text, text}, ...]) joined."""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                parts.append(str(part.get("text") or part.get("content") or f"[{part.get('type', 'part')}]"))
            else:
                parts.append(as_text(part))
        return "\n".join(parts)
    return as_text(content)


def chat(value: Any) -> list[dict] | None:
    """A list of {role, content} messages, or None when `value` is not a chat."""
    value = nested(value)
    if not isinstance(value, (list, tuple)) or not value:
        return None
    out = []
    for item in value:
        if not isinstance(item, dict) or not ("role" in item or "from" in item):
            return None
        role = str(item.get("role") or item.get("from") or "")
        out.append({"role": role, "content": content_text(item.get("content", item.get("value", "")))})
    return out


def is_chat(value: Any) -> bool:
    return chat(value) is not None


def last_user_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message["role"] in ("user", "human"):
            return message["content"]
    return messages[-1]["content"] if messages else ""


def title_from(text: str, fallback: str) -> str:
    """The first non-empty line, cut at a word near TITLE_MAX characters."""
    for line in (text or "").splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            if len(line) <= TITLE_MAX:
                return line
            cut = line[:TITLE_MAX].rsplit(" ", 1)[0]
            return (cut or line[:TITLE_MAX]) + "…"
    return fallback


def brief_from(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= BRIEF_MAX else text[:BRIEF_MAX].rsplit(" ", 1)[0] + "…"


def facet_value(value: Any) -> str | list[str] | None:
    """A short text or a short list of short texts, fit for a facet; None for anything else."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        value = value.strip()
        return value if 0 < len(value) <= FACET_MAX and "\n" not in value else None
    if isinstance(value, (list, tuple)) and 0 < len(value) <= 12:
        items = [facet_value(v) for v in value]
        return [v for v in items if isinstance(v, str)] or None
    return None


def facets_from(row: dict, names: Iterable[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        value = facet_value(nested(row.get(name)))
        if value is not None:
            out[name] = value
    return out


def leftovers(row: dict, shown: Iterable[str], title: str = "Other fields") -> Block | None:
    """Fields no section showed, as one closed block, so nothing in the row is silently dropped."""
    skip = set(shown)
    rest = {k: nested(v) for k, v in row.items() if k not in skip and not str(k).startswith("_")}
    if not rest:
        return None
    return b.disclose(f"{len(rest)} more field{'s' if len(rest) != 1 else ''}: {', '.join(map(str, list(rest)[:8]))}"
                      + ("…" if len(rest) > 8 else ""), [b.value(rest)], title=title)


def grading_note(withheld: list[Withheld], how: str) -> Block:
    """How a row is graded, saying plainly that the answer it is graded against is withheld."""
    if withheld:
        places = ", ".join(w.where for w in withheld[:6]) + ("…" if len(withheld) > 6 else "")
        return b.note(f"{how} The answer it is checked against is withheld ({places}).", "info")
    return b.note(how, "info")


def section(id_: str, title: str, parts: list[Block | None]) -> Section | None:
    kept = [p for p in parts if p is not None]
    return Section(id_, title, kept) if kept else None


def sections(*items: Section | None) -> list[Section]:
    return [s for s in items if s is not None]
