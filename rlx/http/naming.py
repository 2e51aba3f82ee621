"""Identifiers as a person reads them next to the names they already see."""

from __future__ import annotations


def ref_beside_title(ref: str, title: str | None) -> str:
    """What of a task's ref to show under its title, so the same name is never shown twice: nothing when the title
    is the ref, its folder ("chemistry/") when the title is the ref's last part, else the whole ref."""
    title = (title or "").strip()
    if title == ref:
        return ""
    if title and ref.endswith("/" + title):
        return ref[: -len(title)]
    return ref
