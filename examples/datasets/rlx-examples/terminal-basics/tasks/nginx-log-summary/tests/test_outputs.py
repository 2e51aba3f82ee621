"""Checks /app/report.json against a summary recomputed from /app/access.log."""
import collections
import hashlib
import json
import re
import sys
from pathlib import Path

LOG = Path("/app/access.log")
REPORT = Path("/app/report.json")
LOG_SHA256 = "7cc94578fbdd874af7c336e6698fd52374414c4fb73be12772bd6be1ac86d216"
LINE = re.compile(
    r'^(\S+) \S+ \S+ \[[^\]]+\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+|-) "[^"]*" "[^"]*"\s*$'
)


def expected():
    statuses = collections.Counter()
    paths = collections.Counter()
    ips = set()
    total = malformed = 0
    for raw in LOG.read_text(errors="replace").splitlines():
        if not raw.strip():
            continue
        m = LINE.match(raw)
        if not m:
            malformed += 1
            continue
        total += 1
        ips.add(m.group(1))
        paths[m.group(3).split("?", 1)[0]] += 1
        statuses[m.group(4)] += 1
    top = sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    errors = sum(n for code, n in statuses.items() if code.startswith("5"))
    return {
        "total_requests": total,
        "malformed_lines": malformed,
        "unique_ips": len(ips),
        "status_counts": dict(statuses),
        "top_paths": [{"path": p, "count": n} for p, n in top],
        "server_error_rate": round(errors / total, 4),
    }


def main() -> int:
    if hashlib.sha256(LOG.read_bytes()).hexdigest() != LOG_SHA256:
        print("FAIL: /app/access.log was modified")
        return 1
    if not REPORT.is_file():
        print("FAIL: /app/report.json does not exist")
        return 1
    try:
        got = json.loads(REPORT.read_text())
    except ValueError as exc:
        print(f"FAIL: report.json is not valid JSON: {exc}")
        return 1
    want = expected()
    if not isinstance(got, dict) or set(got) != set(want):
        print(f"FAIL: keys {sorted(got) if isinstance(got, dict) else type(got)} != {sorted(want)}")
        return 1
    ok = True
    for key, value in want.items():
        if key == "server_error_rate":
            same = isinstance(got[key], (int, float)) and abs(got[key] - value) < 5e-5
        else:
            same = got[key] == value
        if not same:
            print(f"FAIL: {key}: got {got[key]!r}, expected {value!r}")
            ok = False
    if ok:
        print("PASS: report matches the log")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
