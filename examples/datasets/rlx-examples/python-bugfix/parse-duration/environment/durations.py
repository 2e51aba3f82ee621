"""Human-friendly durations for the job scheduler's config files ("1h30m", "45s", "2d")."""

UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Parse a duration such as "1h30m" into whole seconds. See the task description for the rules."""
    raise NotImplementedError


def format_duration(seconds: int) -> str:
    """Format whole seconds in the canonical form, e.g. 5400 -> "1h30m"."""
    raise NotImplementedError
