"""Aliases: the same task in two datasets (a raw release row and its Harbor conversion), found from what the
datasets declare, never guessed from titles. A converted dataset's card names its source in `source_datasets`,
and each converted task names the source's instance in its metadata; the source's adapter turns that name into
its own ref (`Adapter.find_ref`). Both sides read only stored indexes and packs: no call to the Hub."""

from __future__ import annotations

from rlx.adapters.indexes import load_index, load_pack

INSTANCE_KEYS = ("mimo_instance_id", "source_instance_id")  # metadata keys naming the source's instance
MAX_SOURCES = 8


def sources_of(record) -> list[str]:
    """The datasets a card says this one was made from."""
    named = record.card.get("source_datasets") if isinstance(record.card, dict) else None
    named = [named] if isinstance(named, str) else named
    return [n for n in named or [] if isinstance(n, str) and n != record.id][:MAX_SOURCES]


def instance_named(metadata: dict | None) -> str | None:
    for key in INSTANCE_KEYS:
        value = (metadata or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return None


def in_sources(store, record, name: str | None) -> list[tuple[str, str]]:
    """(dataset, ref) of the task called `name` in each source dataset this one declares, when indexed."""
    from rlx.adapters.registry import get

    found = []
    for source_id in sources_of(record) if name else []:
        index = load_index(store, source_id)
        adapter = get(index.adapter) if index is not None else None
        ref = adapter.find_ref(index, name) if adapter is not None else None
        if ref:
            found.append((source_id, ref))
    return found


def in_conversions(store, conversion_ids: list[str], name: str | None) -> list[tuple[str, str]]:
    """(dataset, ref) of each task, in the given Harbor conversions, whose metadata names `name`."""
    found = []
    for conversion_id in conversion_ids[:MAX_SOURCES] if name else []:
        pack = load_pack(store, conversion_id) or {}
        for ref, entry in (pack.get("tasks") or {}).items():
            if instance_named(((entry or {}).get("config") or {}).get("metadata")) == name:
                found.append((conversion_id, ref))
    return found
