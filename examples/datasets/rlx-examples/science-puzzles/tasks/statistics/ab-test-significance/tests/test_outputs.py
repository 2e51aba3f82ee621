"""Recomputes the first-row-per-user z-test from /app/experiment.csv and checks /app/ab_result.txt."""
import csv
import math
import sys
from pathlib import Path

KEYS = ["users_A", "users_B", "conversion_A", "conversion_B", "z", "p_value", "decision"]


def expected() -> dict:
    first = {}
    for row in csv.DictReader(open("/app/experiment.csv", newline="")):
        first.setdefault(row["user_id"], (row["variant"], int(row["converted"])))
    n = {"A": 0, "B": 0}
    conv = {"A": 0, "B": 0}
    for variant, converted in first.values():
        n[variant] += 1
        conv[variant] += converted
    pa, pb = conv["A"] / n["A"], conv["B"] / n["B"]
    pooled = (conv["A"] + conv["B"]) / (n["A"] + n["B"])
    z = (pb - pa) / math.sqrt(pooled * (1 - pooled) * (1 / n["A"] + 1 / n["B"]))
    p = math.erfc(abs(z) / math.sqrt(2))
    return {"users_A": n["A"], "users_B": n["B"], "conversion_A": pa, "conversion_B": pb,
            "z": z, "p_value": p, "decision": "reject" if p < 0.05 else "fail_to_reject"}


def main() -> int:
    path = Path("/app/ab_result.txt")
    if not path.is_file():
        print("FAIL: /app/ab_result.txt missing")
        return 1
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    pairs = [line.split("=", 1) for line in lines]
    if [p[0] for p in pairs] != KEYS or any(len(p) != 2 for p in pairs):
        print(f"FAIL: expected the keys {KEYS} in order, got {lines}")
        return 1
    got, want, bad = dict(pairs), expected(), []
    for key in KEYS:
        if isinstance(want[key], float):
            ok = len(got[key].partition(".")[2]) == 4 and abs(float(got[key]) - want[key]) <= 0.00015
        else:
            ok = got[key] == str(want[key])
        if not ok:
            bad.append(f"{key}: got {got[key]!r}")
    if bad:
        print("FAIL", *bad, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
