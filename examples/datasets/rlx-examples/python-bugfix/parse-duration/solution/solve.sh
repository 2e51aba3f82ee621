#!/usr/bin/env bash
# Reference solution: a strict regular expression per part, Fraction arithmetic for decimals.
set -euo pipefail
cat > /app/durations.py <<'PY'
"""Human-friendly durations for the job scheduler's config files ("1h30m", "45s", "2d")."""

import re
from fractions import Fraction

UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_ORDER = "dhms"
_PART = re.compile(r"\s*(\d+(?:\.\d+)?)([dhms])", re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Parse a duration such as "1h30m" into whole seconds."""
    if not isinstance(text, str):
        raise ValueError("duration must be a string")
    stripped = text.strip()
    if re.fullmatch(r"\d+", stripped):
        return int(stripped)
    if not stripped:
        raise ValueError("empty duration")
    total, pos, last = Fraction(0), 0, -1
    while pos < len(stripped):
        m = _PART.match(stripped, pos)
        if m is None:
            raise ValueError(f"invalid duration: {text!r}")
        unit = _ORDER.index(m.group(2).lower())
        if unit <= last:
            raise ValueError(f"units out of order or repeated in {text!r}")
        last = unit
        total += Fraction(m.group(1)) * UNITS[_ORDER[unit]]
        pos = m.end()
    if total.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of seconds")
    return int(total)


def format_duration(seconds: int) -> str:
    """Format whole seconds in the canonical form, e.g. 5400 -> "1h30m"."""
    if seconds < 0:
        raise ValueError("negative duration")
    if seconds == 0:
        return "0s"
    parts = []
    for unit in _ORDER:
        count, seconds = divmod(seconds, UNITS[unit])
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
PY
