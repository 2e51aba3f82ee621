#!/usr/bin/env bash
# Reference solution: first differences of the pH curve.
set -euo pipefail
cd /app
python3 - <<'PY'
import csv, json

with open("titration.csv", newline="") as fh:
    data = [(float(r["volume_naoh_ml"]), float(r["ph"])) for r in csv.DictReader(fh)]
best = max(range(len(data) - 1),
           key=lambda i: (data[i + 1][1] - data[i][1]) / (data[i + 1][0] - data[i][0]))
v_eq = (data[best][0] + data[best + 1][0]) / 2
result = {"equivalence_volume_ml": round(v_eq, 2), "acid_concentration_mol_l": round(0.1000 * v_eq / 25.00, 4)}
with open("titration_result.json", "w") as fh:
    json.dump(result, fh)
print(result)
PY
