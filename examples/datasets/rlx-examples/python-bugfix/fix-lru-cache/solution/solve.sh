#!/usr/bin/env bash
# Reference solution: refresh recency on hits and updates, evict from the LRU end, handle capacity 0.
set -euo pipefail
cd /app
python3 - <<'PY'
from pathlib import Path

path = Path("lru.py")
src = path.read_text()
fixes = [
    ("            self.hits += 1\n            return self._data[key]\n",
     "            self.hits += 1\n            self._data.move_to_end(key)\n            return self._data[key]\n"),
    ("        if len(self._data) >= self.capacity:\n            self._data.popitem(last=True)\n"
     "            self.evictions += 1\n        self._data[key] = value\n",
     "        if self.capacity == 0:\n            return\n"
     "        if key in self._data:\n            self._data[key] = value\n"
     "            self._data.move_to_end(key)\n            return\n"
     "        if len(self._data) >= self.capacity:\n            self._data.popitem(last=False)\n"
     "            self.evictions += 1\n        self._data[key] = value\n"),
]
for old, new in fixes:
    assert src.count(old) == 1, old
    src = src.replace(old, new)
path.write_text(src)
PY
