#!/usr/bin/env bash
# Reference solution: first row per user, then the pooled two-proportion z-test.
set -euo pipefail
cd /app
python3 - <<'PY'
import csv, math

first = {}
with open("experiment.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["user_id"] not in first:
            first[row["user_id"]] = (row["variant"], row["converted"] == "1")
users = {v: sum(1 for var, _ in first.values() if var == v) for v in "AB"}
wins = {v: sum(1 for var, c in first.values() if var == v and c) for v in "AB"}
rate = {v: wins[v] / users[v] for v in "AB"}
pooled = (wins["A"] + wins["B"]) / (users["A"] + users["B"])
z = (rate["B"] - rate["A"]) / math.sqrt(pooled * (1 - pooled) * (1 / users["A"] + 1 / users["B"]))
p_value = math.erfc(abs(z) / math.sqrt(2))
lines = [
    f"users_A={users['A']}", f"users_B={users['B']}",
    f"conversion_A={rate['A']:.4f}", f"conversion_B={rate['B']:.4f}",
    f"z={z:.4f}", f"p_value={p_value:.4f}",
    f"decision={'reject' if p_value < 0.05 else 'fail_to_reject'}",
]
with open("ab_result.txt", "w") as fh:
    fh.write("\n".join(lines) + "\n")
print(*lines, sep="\n")
PY
