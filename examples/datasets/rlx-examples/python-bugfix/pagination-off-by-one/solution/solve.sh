#!/usr/bin/env bash
# Reference solution: ceiling division, 1-based slicing, and an inclusive pager window.
set -euo pipefail
cd /app
python3 - <<'PY'
from pathlib import Path

path = Path("paginate.py")
src = path.read_text()
fixes = [
    ("    return total // per_page\n", "    return -(-total // per_page)\n"),
    ("    if page < 0:\n        raise ValueError(\"page must be at least 1\")\n    start = page * per_page\n",
     "    if page < 1:\n        raise ValueError(\"page must be at least 1\")\n"
     "    if per_page < 1:\n        raise ValueError(\"per_page must be at least 1\")\n"
     "    start = (page - 1) * per_page\n"),
    ("    last = min(total_pages, first + width)\n    first = max(1, last - width)\n    return list(range(first, last))\n",
     "    last = min(total_pages, first + width - 1)\n    first = max(1, last - width + 1)\n"
     "    return list(range(first, last + 1))\n"),
]
for old, new in fixes:
    assert src.count(old) == 1, old
    src = src.replace(old, new)
path.write_text(src)
PY
