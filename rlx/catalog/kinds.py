"""The Kind taxonomy: the one word every card, chip, meta tag and page heading shows for what an environment is.

Five kinds, as the design names them: Harbor, OpenEnv, Verifiers, NeMo Gym, and everything else. Adapters and row
processors say more precisely what they read (task folders, verl rows, a MiMo release, a Gradio Space); those
finer words fold into the five here, and nowhere else, so a card and the chip that filters it never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx.sources.base import RepoRecord


@dataclass(frozen=True)
class Kind:
    key: str
    label: str


KINDS = {
    k.key: k
    for k in (
        Kind("harbor", "Harbor"),
        Kind("openenv", "OpenEnv"),
        Kind("verifiers", "Verifiers"),
        Kind("nemo-gym", "NeMo Gym"),
        Kind("other", "Other"),
    )
}

# What adapters and processors call what they read (their `kind`, `kind_of_index`), folded into the five.
_FINER = {"openenv-space": "openenv", "openenv-data": "openenv", "other-space": "other", "task-folders": "other",
          "verl": "other", "rows": "other", "mimo": "other"}
_ROW_FORMATS = (("verifiers", "verifiers"), ("nemo-gym", "nemo-gym"), ("openenv", "openenv"))


def kind_of(record: RepoRecord, found: str | bool | None = None) -> str:
    """The kind key for a listing record. `found` is what an index found: the kind its adapter read (a key of
    KINDS or a finer word for one), False when the index found no task of its format, None when the dataset is
    not indexed."""
    if isinstance(found, str):
        found = _FINER.get(found, found)
        if found in KINDS:
            return found
        found = None
    tags = set(record.tags)
    if record.repo_type == "space":
        return "openenv" if "openenv" in tags and record.sdk == "docker" else "other"
    if found or (found is None and "harbor" in tags):
        return "harbor"
    for tag, kind in _ROW_FORMATS:
        if tag in tags:
            return kind
    return "other"


def fold_kind(word: str) -> str:
    """One of the five kind keys for a finer word (an older link's ?kind=verl still finds its cards); other words
    are returned as they are, for the caller to refuse."""
    return _FINER.get(word, word)


def kind_label(kind: str, repo_type: str = "dataset", verified: bool = True) -> str:
    """The words for a kind, wherever it is shown. A Space claims OpenEnv only once a check of its server
    verified it (its tag alone makes it a Space that declares OpenEnv); any other Space is a Space."""
    kind = _FINER.get(kind, kind)
    if repo_type == "space":
        if kind == "openenv":
            return "OpenEnv Space" if verified else "Space · declares OpenEnv"
        return "Space"
    return KINDS[kind].label if kind in KINDS else KINDS["other"].label
