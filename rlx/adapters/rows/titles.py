"""Titles and briefs from what tells a row apart: when rows of a split share a title because their prompts open
alike (one system prompt or one preamble for all), the shared opening is cut and the title is the rest's first
line. Each opening is kept in the index as its length and a hash, so a task page read later cuts the same text
without the other rows at hand."""

from __future__ import annotations

import hashlib
import os

from rlx.adapters.contract import Block
from rlx.adapters.rows.processors.common import brief_from, title_from

MIN_SHARED = 2  # rows that must share a title before their opening is looked for
MIN_OPENING = 12  # characters: a shorter common start ("What is ") is part of each question, not a preamble
MAX_OPENINGS = 20  # per split: each is a group of rows with the same title


def agent_text(sections) -> str:
    """The text a row's title should come from: the last user turn, else the last prompt block, of what the
    agent gets."""
    given = [blk for s in sections if s.id == "task" for blk in _flat(s.blocks)]
    for blk in reversed(given):
        if blk.kind == "messages":
            users = [m for m in blk.data if m.get("role") in ("user", "human")]
            if users:
                return str(users[-1].get("content") or "")
    prompts = [blk.data["text"] for blk in given if blk.kind == "prompt" and blk.data.get("text")]
    if prompts:
        return str(prompts[-1])
    chats = [blk for blk in given if blk.kind == "messages" and blk.data]
    return str(chats[-1].data[-1].get("content") or "") if chats else ""


def _flat(blocks: list[Block]):
    for blk in blocks:
        yield blk
        if blk.kind == "disclose":
            yield from _flat(blk.data["blocks"])


def openings(titled: list[tuple[str, str]]) -> list[list]:
    """[length, hash] of each opening shared by rows of one split; `titled` is their (title, agent text)."""
    groups: dict[str, list[str]] = {}
    for title, text in titled:
        if text and text not in groups.get(title, ()):  # the same prompt twice shares all of it, not an opening
            groups.setdefault(title, []).append(text)
    found = []
    for texts in sorted(groups.values(), key=len, reverse=True):
        if len(texts) < MIN_SHARED or len(found) >= MAX_OPENINGS:
            break
        cut = _word_boundary(os.path.commonprefix(texts))
        if len(cut) >= MIN_OPENING and any(t[len(cut):].strip() for t in texts):
            found.append([len(cut), _digest(cut)])
    return found


def _word_boundary(prefix: str) -> str:
    """The shared start, cut back to its last whitespace, so no word of a question is cut in two."""
    if not prefix or prefix[-1].isspace():
        return prefix
    spaces = [i for i, ch in enumerate(prefix) if ch.isspace()]
    return prefix[:spaces[-1] + 1] if spaces else ""


def retitle(task, text: str, known: list[list]) -> None:
    """Give `task` the title and brief of `text` past its opening, when it starts with one of `known`."""
    for length, digest in known or ():
        if len(text) > length and _digest(text[:length]) == digest:
            rest = text[length:]
            task.title = title_from(rest, task.title)
            task.brief = brief_from(rest)
            return


def split_key(ref) -> str:
    return f"{ref.config}/{ref.split}" if ref.config else ref.split


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
