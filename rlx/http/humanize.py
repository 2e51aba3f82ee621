"""Numbers and dates as a person reads them on a card."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone


def compact_number(value) -> str:
    """1234 -> 1.2k, 2500000 -> 2.5M; small numbers as they are."""
    try:
        n = float(value)
    except (TypeError, ValueError):
        return ""
    for limit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= limit:
            text = f"{n / limit:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    return str(int(n)) if n == int(n) else f"{n:.1f}"


def relative_date(value: str | None, now: datetime | None = None) -> str:
    """An ISO date as '3 days ago', '2 months ago'; empty when absent or unreadable."""
    if not value:
        return ""
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    seconds = ((now or datetime.now(timezone.utc)) - when).total_seconds()
    if seconds < 0:
        return "just now"
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600),
                       ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def file_size(n) -> str:
    """Bytes as 512 B, 3.4 KB, 1.2 MB."""
    try:
        n = float(n)
    except (TypeError, ValueError):
        return ""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


_OPERATOR_WORDS = re.compile(r"(?:^|\s)(?:OR|AND|NOT)(?:\s|$)|[\"*()]|(?:^|\s)-\w")


def operator_hint(q: str | None) -> str:
    """For a search that found nothing: why, when it was written in a search-engine syntax we do not have
    (rlx/catalog/words.py: every word must match, punctuation means nothing), so "cpp OR rust" is not a mystery."""
    if not q or not _OPERATOR_WORDS.search(q):
        return ""
    return ("Search has no operators: every word must match, OR, AND and NOT are words like any other, and quotes, "
            "stars, brackets and minus signs are ignored. Search for one alternative at a time.")


def dollars(value) -> str:
    """A cost as a page says it: "$0.0123"; a cost below a hundredth of a cent keeps two significant digits
    ("$0.000032") rather than reading as $0.0000; "unknown" stays so; None (nothing to say) is a dash."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if value == 0 or abs(value) >= 0.0001:
        return f"${value:.4f}"
    digits = 1 - math.floor(math.log10(abs(value)))
    return f"${value:.{digits}f}"
