#!/usr/bin/env bash
# Reference solution: classify every snapshot line with Python's stat constants.
set -euo pipefail
cd /app
python3 - <<'PY'
import json, stat

world, suid, keys = [], [], []
with open("perms_snapshot.tsv") as fh:
    for line in fh:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        mode_txt, owner, group, kind, path = line.split("\t", 4)
        mode = int(mode_txt, 8)
        if kind in "fd" and mode & 0o002 and not (kind == "d" and mode & stat.S_ISVTX):
            world.append(path)
        if kind == "f" and owner == "root" and mode & stat.S_ISUID:
            suid.append(path)
        parent, _, name = path.rpartition("/")
        if kind == "f" and parent.endswith("/.ssh") and name.startswith("id_") \
                and not name.endswith(".pub") and mode & 0o077:
            keys.append(path)

audit = {"world_writable": sorted(world), "setuid_root": sorted(suid), "loose_private_keys": sorted(keys)}
audit["summary"] = {name: len(paths) for name, paths in audit.items()}
with open("audit.json", "w") as fh:
    json.dump(audit, fh, indent=2)
    fh.write("\n")
print(json.dumps(audit["summary"]))
PY
