"""A small LRU cache used in front of the pricing service.

The cache holds at most `capacity` entries. Reading or writing a key makes it the most
recently used; inserting a new key into a full cache evicts the least recently used one.
A capacity of 0 means nothing is ever stored.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Hashable


class LRUCache:
    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError("capacity must be >= 0")
        self.capacity = capacity
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def get(self, key: Hashable, default: Any = None) -> Any:
        if key in self._data:
            self.hits += 1
            return self._data[key]
        self.misses += 1
        return default

    def put(self, key: Hashable, value: Any) -> None:
        if len(self._data) >= self.capacity:
            self._data.popitem(last=True)
            self.evictions += 1
        self._data[key] = value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> list:
        """Keys from least to most recently used."""
        return list(self._data)
