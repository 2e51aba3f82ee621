"""Numbers as Harbor writes them: a whole number without a decimal point (2 CPUs, not 2.0), durations readable."""

from __future__ import annotations


def plain(value) -> str | None:
    """2.0 -> "2", 0.5 -> "0.5", "2" stays "2"; None and "" stay None."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def seconds(value) -> str | None:
    """A duration in seconds as a visitor reads it: "30 s", "10 min" (from 2 minutes up)."""
    if value in (None, ""):
        return None
    value = float(value)
    return f"{value / 60:g} min" if value >= 120 else f"{value:g} s"
