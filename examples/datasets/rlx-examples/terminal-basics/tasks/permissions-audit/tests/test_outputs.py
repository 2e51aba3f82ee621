"""Independent audit of /app/perms_snapshot.tsv, compared with the agent's /app/audit.json."""
import json
import posixpath
import stat
import sys
from pathlib import Path

SNAPSHOT = Path("/app/perms_snapshot.tsv")
AUDIT = Path("/app/audit.json")


def entries():
    for line in SNAPSHOT.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        mode, owner, _group, kind, path = line.split("\t")
        yield int(mode, 8), owner, kind, path


def expected() -> dict:
    world, suid, keys = [], [], []
    for mode, owner, kind, path in entries():
        if kind in ("f", "d") and mode & stat.S_IWOTH and not (kind == "d" and mode & stat.S_ISVTX):
            world.append(path)
        if kind == "f" and owner == "root" and mode & stat.S_ISUID:
            suid.append(path)
        name, parent = posixpath.basename(path), posixpath.basename(posixpath.dirname(path))
        if (kind == "f" and parent == ".ssh" and name.startswith("id_") and not name.endswith(".pub")
                and mode & 0o077):
            keys.append(path)
    result = {"world_writable": sorted(world), "setuid_root": sorted(suid), "loose_private_keys": sorted(keys)}
    result["summary"] = {k: len(v) for k, v in result.items()}
    return result


def main() -> int:
    if not AUDIT.is_file():
        print("FAIL: /app/audit.json does not exist")
        return 1
    try:
        got = json.loads(AUDIT.read_text())
    except ValueError as exc:
        print(f"FAIL: not JSON: {exc}")
        return 1
    want = expected()
    bad = [k for k in want if not isinstance(got, dict) or got.get(k) != want[k]]
    for key in bad:
        print(f"FAIL: {key}: got {got.get(key) if isinstance(got, dict) else got!r}\n  expected {want[key]!r}")
    if not bad:
        print("PASS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
