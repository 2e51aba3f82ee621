#!/usr/bin/env bash
# Reference solution: parse both exports into dictionaries and compare them.
set -euo pipefail
cd /app
python3 - <<'PY'
def load(name):
    hosts = {}
    for line in open(name):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        hosts[fields[0]] = dict(f.split("=", 1) for f in fields[1:])
    return hosts

old, new = load("inventory_2024-q4.txt"), load("inventory_2025-q1.txt")
lines = []
for host in sorted(old.keys() | new.keys()):
    if host not in old:
        lines.append(f"+ {host}")
    elif host not in new:
        lines.append(f"- {host}")
    else:
        for key in sorted(old[host].keys() | new[host].keys()):
            before = old[host].get(key, "(none)")
            after = new[host].get(key, "(none)")
            if before != after:
                lines.append(f"~ {host} {key}: {before} -> {after}")
with open("changes.txt", "w") as fh:
    fh.write("\n".join(lines) + "\n")
PY
cat changes.txt
