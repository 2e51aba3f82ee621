"""Who may see a run, in one rule that every page showing runs asks (run page, its stream, JSON, compare).

A run inherits its dataset's privacy: a run on a private or gated dataset is private, whatever the form posted,
so only whoever started it sees it, and nothing of it reaches community counts (they count public runs only).
The rule holds on read too: a run recorded public on a dataset that is private now (made private since, or run
before this rule) is its owner's alone, and a run on a private dataset is shown to its owner only while the Hub
still lets their token open the dataset (the web asks, rlx/web/environments/dataset_access.py).
A run on a hidden environment is shown to nobody on the public app: hidden means absent.
"""

from __future__ import annotations

from typing import Callable

from rlx.runs.record import RunRecord

PUBLIC, PRIVATE = "public", "private"
# What the Hub says now of a run's dataset, for the visitor asking: public; private or gated and their token opens
# it; neither; or no answer (an outage: the run's own record decides).
OPEN, READABLE, CLOSED, UNKNOWN = "open", "readable", "closed", "unknown"
ACCESS_FRESH_S = 15.0  # how long a token's access to a dataset, once checked, is taken as known


def dataset_is_private(record) -> bool:
    """Private or gated on the Hub: what a token unlocked is that token's alone, and so are its runs."""
    return bool(getattr(record, "private", False) or getattr(record, "gated", False))


def visibility_for(record, asked: str) -> str:
    """The visibility a run on this dataset gets: the visitor's choice only for a public dataset."""
    return PRIVATE if dataset_is_private(record) else asked


def offered_visibilities(record, choices: list[str]) -> list[str]:
    """The visibilities the run form offers for this dataset: never public for a private or gated one."""
    return [PRIVATE] if dataset_is_private(record) else list(choices)


def may_see(run: RunRecord, viewer: str | None, hidden: frozenset[str] | set[str],
             dataset_access: Callable[[str], str] = lambda _env_id: UNKNOWN) -> bool:
    """Whether `viewer` (an owner id, or None) may see `run` (a run, or a batch); `dataset_access(env_id)` is
    asked only when the record alone would let them (one of OPEN, READABLE, CLOSED, UNKNOWN)."""
    if run.env_id in hidden:
        return False
    owner = run.visitor is not None and run.visitor == viewer
    if run.visibility != PUBLIC and not owner:
        return False
    access = dataset_access(run.env_id)
    if access == OPEN:
        return True
    if access == UNKNOWN:
        return owner or not run.private_dataset
    return owner and access == READABLE


def options_for_dataset(record, options: list) -> list:
    """The run options as the form shows them for this dataset: its visibility field offers private alone."""
    import dataclasses

    if not dataset_is_private(record):
        return options
    return [dataclasses.replace(option, fields=[
        dataclasses.replace(f, choices=offered_visibilities(record, f.choices), default=PRIVATE)
        if f.name == "visibility" else f for f in option.fields]) for option in options]
