"""Markdown rendered and sanitized, and code highlighted with a link on every line."""

from __future__ import annotations

import functools

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_lexer_by_name, guess_lexer_for_filename
from pygments.util import ClassNotFound

HIGHLIGHT_MAX = 400_000  # characters; longer files are shown plain, still with line links

_md = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table").enable("strikethrough")
_ALLOWED_TAGS = nh3.ALLOWED_TAGS - {"img"} | {"details", "summary"}


@functools.lru_cache(maxsize=512)
def render_markdown(text: str) -> Markup:
    """Markdown as safe HTML: raw HTML in the source is sanitized, images and scripts never load."""
    html = _md.render(text or "")
    clean = nh3.clean(html, tags=_ALLOWED_TAGS, link_rel="nofollow noopener noreferrer",
                      url_schemes={"http", "https", "mailto"})
    return Markup(clean)


def render_verbatim(text) -> Markup:
    """Text for a <pre>, exact: a newline first (a parser drops one right after <pre>, so the text's own leading
    newline survives) and each carriage return as a character reference (a parser turns a literal CR LF into LF)."""
    return Markup("\n" + str(escape(str(text))).replace("\r", "&#13;"))


def _line(number: int, html: str, anchors: bool) -> str:
    if anchors:
        return (f'<span class="line" id="L{number}"><a class="ln" href="#L{number}" aria-label="line {number}">'
                f'{number}</a><span class="lc">{html}</span></span>')
    return f'<span class="line"><span class="ln">{number}</span><span class="lc">{html}</span></span>'


class _LineFormatter(HtmlFormatter):
    """Pygments' HTML, one element per line with its number; with anchors, each has an id (L12) to link to."""

    def __init__(self, anchors: bool, **options):
        super().__init__(**options)
        self.anchors = anchors

    def wrap(self, source):
        yield 0, '<pre class="code">'
        number = 0
        for kind, line in source:
            if kind == 1:
                number += 1
                yield 1, _line(number, line.rstrip("\n"), self.anchors)
            else:
                yield kind, line
        yield 0, "</pre>"


def _lexer(language: str, path: str | None, text: str):
    names = {"docker": "docker", "bash": "bash", "batch": "batch", "text": "text"}
    try:
        if language and language != "text":
            return get_lexer_by_name(names.get(language, language), stripnl=False)
        if path:
            return guess_lexer_for_filename(path, text[:4000], stripnl=False)
    except ClassNotFound:
        pass
    return get_lexer_by_name("text", stripnl=False)


@functools.lru_cache(maxsize=256)
def render_code(text: str, language: str = "text", path: str | None = None, anchors: bool = False) -> Markup:
    """Highlighted code with line numbers; with anchors, every line can be linked (#L10) and a range selected
    (#L10-L20). Only one block per page should have anchors (the file viewer's)."""
    text = text or ""
    if len(text) > HIGHLIGHT_MAX:
        body = "".join(_line(i, str(escape(line)), anchors) for i, line in enumerate(text.splitlines(), 1))
        return Markup(f'<pre class="code">{body}</pre>')
    return Markup(highlight(text, _lexer(language, path, text), _LineFormatter(anchors, nowrap=False)))
