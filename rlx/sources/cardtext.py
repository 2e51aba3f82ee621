"""A dataset card's summary as plain text: its first real paragraph, rendered by markdown-it, markup dropped.

Rendering (rather than stripping markup by pattern) is what turns `&nbsp;` into a space, keeps a link's words,
and drops badge images (`![build](...)`, `[![pypi](...)](...)`) and raw HTML, however they are nested.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", re.S)
_md = MarkdownIt("commonmark").enable("table")
MIN_CHARS = 20  # a shorter paragraph (a lone badge line's leftovers, "Usage:") is not a summary


def card_summary(readme: str, limit: int = 300, min_chars: int = MIN_CHARS) -> str:
    """The first paragraph of a README with more than `min_chars` of text, as plain text cut at a word."""
    body = _FRONT_MATTER.sub("", readme[:64_000], count=1)
    tokens = _md.parse(body)
    for index, token in enumerate(tokens):
        if token.type != "paragraph_open" or index + 1 >= len(tokens):
            continue
        text = " ".join(_plain(tokens[index + 1].children or []).split())
        if len(text) > min_chars:
            return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"
    return ""


def _plain(children) -> str:
    """The words of an inline token: text, code and link words; images and inline HTML left out."""
    out = []
    for child in children:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)
