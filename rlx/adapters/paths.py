"""Task-relative paths that cannot leave their task.

A path arrives from a URL (`?f=tests/test.sh`) or a file listing, and names a file inside one task folder.
`safe_relpath` turns it into one clean POSIX form or refuses it; `join_inside` maps the clean form onto a
folder on disk and refuses anything a symlink would carry outside.

Refused: `..` anywhere (also once or twice percent-decoded, since a path may be decoded again further on),
absolute paths, backslashes, NUL and other control characters, a leading `~`, drive letters (`C:`), and
over-long input. Accepted paths lose `.` segments, doubled and trailing slashes; the task root is "".
Everything is decided on the text as given: percent-decoding is only used to look for tricks, never to
rewrite the path, so a file whose name holds a literal `%20` keeps it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

MAX_PATH_CHARS = 1024

_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_relpath(raw: str) -> str | None:
    """The clean relative form of `raw`, "" for the task root, or None if it could point outside the task."""
    if not isinstance(raw, str) or len(raw) > MAX_PATH_CHARS:
        return None
    once = unquote(raw, errors="replace")
    twice = unquote(once, errors="replace")
    if any(_looks_dangerous(form) for form in (raw, once, twice)):
        return None
    segments = [part for part in raw.split("/") if part not in ("", ".")]
    return "/".join(segments)


def _looks_dangerous(path: str) -> bool:
    if path.startswith("/") or "\\" in path or _DRIVE.match(path):
        return True
    if any(unicodedata.category(char) == "Cc" for char in path):
        return True
    segments = path.split("/")
    if segments[0].startswith("~"):
        return True
    return any(part.strip() == ".." for part in segments)


def join_inside(root: Path, rel: str) -> Path | None:
    """`root / rel` resolved, or None if `rel` is unsafe or the result (after symlinks) lies outside root."""
    clean = safe_relpath(rel)
    if clean is None:
        return None
    base = Path(root).resolve()
    target = (base / clean).resolve() if clean else base
    if target != base and not target.is_relative_to(base):
        return None
    return target
