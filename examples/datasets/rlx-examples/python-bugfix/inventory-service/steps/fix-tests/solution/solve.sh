#!/usr/bin/env bash
# Step 1 reference solution: guard remove(), exact Decimal sum, no double header skip.
set -euo pipefail
cd /app
python3 - <<'PY'
from pathlib import Path

path = Path("inventory/store.py")
src = path.read_text()
fixes = [
    ("            raise ValueError(\"qty must be positive\")\n        self._items[sku].quantity -= qty\n",
     "            raise ValueError(\"qty must be positive\")\n"
     "        item = self._items[sku]\n"
     "        if qty > item.quantity:\n"
     "            raise InsufficientStock(f\"{sku}: {qty} requested, {item.quantity} in stock\")\n"
     "        item.quantity -= qty\n"),
    ("        return Decimal(sum(int(item.quantity * item.unit_cost) for item in self._items.values()))\n",
     "        return sum((item.quantity * item.unit_cost for item in self._items.values()), Decimal(0))\n"),
    ("            next(reader)  # skip the header\n", ""),
]
for old, new in fixes:
    assert src.count(old) == 1, old
    src = src.replace(old, new)
path.write_text(src)
PY
python3 -m unittest discover -s tests
