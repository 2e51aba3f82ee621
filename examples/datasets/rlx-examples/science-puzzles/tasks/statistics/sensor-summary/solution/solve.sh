#!/usr/bin/env bash
# Reference solution: filter the unusable readings, then the statistics module.
set -euo pipefail
cd /app
python3 - <<'PY'
import csv, json, statistics
from collections import defaultdict

readings, discarded = defaultdict(list), 0
with open("readings.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        value = row["temperature_c"].strip()
        if value in ("", "NA") or float(value) == -999.0:
            discarded += 1
            readings.setdefault(row["sensor_id"], [])
            continue
        readings[row["sensor_id"]].append(float(value))

summary = {"sensors": {}, "discarded": discarded}
for sensor, values in sorted(readings.items()):
    summary["sensors"][sensor] = {
        "count": len(values),
        "mean": round(statistics.fmean(values), 3),
        "median": round(statistics.median(values), 3),
        "stdev": round(statistics.stdev(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
    }
with open("summary.json", "w") as fh:
    json.dump(summary, fh, indent=2)
print(json.dumps(summary["sensors"], indent=1))
PY
