"""The stylesheets every page inlines, without their comments and spacing.

The home page's first response must draw its first card alone and stay small; the comments that explain app.css
are for its readers, not for the browser, so they stay in the file and leave the page. Quoted text (a font's name,
a `content: " ▾"`) is kept exactly as written.
"""

from __future__ import annotations

import re

# One token at a time, in document order: a comment (dropped), a quoted string (kept), or a run of anything else.
_TOKEN = re.compile(r"""/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^"'/]+|/""", re.S)
_SPACE = re.compile(r"\s+")
# Spacing the syntax does not need: around braces, semicolons, commas and the child combinator, and after a
# colon. Never before a colon: `.a :hover` (a descendant) is not `.a:hover`.
_AROUND = re.compile(r"\s*([{};,>])\s*")
_AFTER_COLON = re.compile(r":\s+")


def minify(css: str) -> str:
    parts, run = [], []
    for token in _TOKEN.findall(css):
        if token[0] in "\"'":
            parts += [_squeeze("".join(run)), token]
            run = []
        elif not token.startswith("/*"):
            run.append(token)
        else:
            run.append(" ")  # a comment between two words still parts them
    parts.append(_squeeze("".join(run)))
    return "".join(parts).strip()


def _squeeze(text: str) -> str:
    text = _AFTER_COLON.sub(":", _AROUND.sub(r"\1", _SPACE.sub(" ", text)))
    return text.replace(";}", "}")
