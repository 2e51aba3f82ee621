"""Scores /app/changes.txt on three axes and writes them as a JSON object to the path in argv[1]."""
import json
import sys
from pathlib import Path

OLD = Path("/app/inventory_2024-q4.txt")
NEW = Path("/app/inventory_2025-q1.txt")
REPORT = Path("/app/changes.txt")


def load(path: Path) -> dict:
    hosts = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        host, *pairs = line.split()
        hosts[host] = dict(pair.split("=", 1) for pair in pairs)
    return hosts


def expected() -> list[tuple]:
    old, new = load(OLD), load(NEW)
    rows = []
    for host in sorted(set(old) | set(new)):
        if host not in old:
            rows.append((host, "", f"+ {host}"))
        elif host not in new:
            rows.append((host, "", f"- {host}"))
        else:
            for key in sorted(set(old[host]) | set(new[host])):
                a, b = old[host].get(key, "(none)"), new[host].get(key, "(none)")
                if a != b:
                    rows.append((host, key, f"~ {host} {key}: {a} -> {b}"))
    return rows


def main() -> None:
    want = [text for _host, _key, text in expected()]
    got = REPORT.read_text().splitlines() if REPORT.is_file() else []
    got_set = {line.strip() for line in got if line.strip()}

    def part(prefixes: tuple) -> bool:
        mine = {line for line in got_set if line.startswith(prefixes)}
        return bool(got) and mine == {line for line in want if line.startswith(prefixes)}

    scores = {
        "added_removed": int(part(("+ ", "- "))),
        "changed": int(part(("~ ",))),
        "exact_format": int(bool(got) and got == want),
    }
    Path(sys.argv[1]).write_text(json.dumps(scores) + "\n")
    if scores["exact_format"] == 0:
        print("expected:", *want, sep="\n  ")


if __name__ == "__main__":
    main()
