"""Who may see a run, in one rule that every page showing runs asks (run page, its stream, JSON, compare).

A run inherits its dataset's privacy: a run on a private or gated dataset is private, whatever the form posted,
so only whoever started it sees it, and nothing of it reaches community counts (they count public runs only).
A run on a hidden environment is shown to nobody on the public app: hidden means absent.
"""

from __future__ import annotations

from rlx.runs.record import RunRecord

PUBLIC, PRIVATE = "public", "private"


def dataset_is_private(record) -> bool:
    """Private or gated on the Hub: what a token unlocked is that token's alone, and so are its runs."""
    return bool(getattr(record, "private", False) or getattr(record, "gated", False))


def visibility_for(record, asked: str) -> str:
    """The visibility a run on this dataset gets: the visitor's choice only for a public dataset."""
    return PRIVATE if dataset_is_private(record) else asked


def offered_visibilities(record, choices: list[str]) -> list[str]:
    """The visibilities the run form offers for this dataset: never public for a private or gated one."""
    return [PRIVATE] if dataset_is_private(record) else list(choices)


def may_see(run: RunRecord, viewer: str | None, hidden: frozenset[str] | set[str]) -> bool:
    """Whether `viewer` (an owner id, or None) may see `run`."""
    if run.env_id in hidden:
        return False
    if run.visibility == PUBLIC:
        return True
    return run.visitor is not None and run.visitor == viewer


def options_for_dataset(record, options: list) -> list:
    """The run options as the form shows them for this dataset: its visibility field offers private alone."""
    import dataclasses

    if not dataset_is_private(record):
        return options
    return [dataclasses.replace(option, fields=[
        dataclasses.replace(f, choices=offered_visibilities(record, f.choices), default=PRIVATE)
        if f.name == "visibility" else f for f in option.fields]) for option in options]
