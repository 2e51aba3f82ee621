#!/usr/bin/env bash
# Reference solution: parse the log with Python's re module and write the report.
set -euo pipefail
cd /app
python3 - <<'PY'
import collections, json, re

line_re = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+|-) "[^"]*" "[^"]*"\s*$')
statuses, paths, ips = collections.Counter(), collections.Counter(), set()
total = malformed = 0
with open("access.log", errors="replace") as fh:
    for line in fh:
        if not line.strip():
            continue
        m = line_re.match(line)
        if m is None:
            malformed += 1
            continue
        ip, _method, path, status, _size = m.groups()
        total += 1
        ips.add(ip)
        paths[path.partition("?")[0]] += 1
        statuses[status] += 1

top = sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
five_xx = sum(n for s, n in statuses.items() if s[0] == "5")
report = {
    "total_requests": total,
    "malformed_lines": malformed,
    "unique_ips": len(ips),
    "status_counts": dict(sorted(statuses.items())),
    "top_paths": [{"path": p, "count": n} for p, n in top],
    "server_error_rate": round(five_xx / total, 4),
}
with open("report.json", "w") as fh:
    json.dump(report, fh, indent=2)
    fh.write("\n")
PY
