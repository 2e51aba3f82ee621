"""Reader for the `.svc` service configuration format (see FORMAT.md)."""

from __future__ import annotations

from pathlib import Path


def parse(text: str) -> dict:
    """Parse the text of a .svc file into nested dicts."""
    raise NotImplementedError


def load(path: str | Path) -> dict:
    """Parse the .svc file at `path`."""
    return parse(Path(path).read_text(encoding="utf-8"))
