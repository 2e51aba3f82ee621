"""What may leave the server: every key beginning with `_` is dropped, at any depth."""

from __future__ import annotations

import dataclasses


def public(value):
    """A copy of `value` (dicts, lists, dataclasses) without `_` keys or `_` fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: public(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_"))}
    if isinstance(value, (list, tuple)):
        return [public(v) for v in value]
    return value
