"""Per-sensor statistics recomputed from /app/readings.csv and compared with /app/summary.json."""
import csv
import json
import statistics
import sys
from pathlib import Path

UNUSABLE = {"", "NA"}


def expected():
    values, discarded = {}, 0
    for row in csv.DictReader(open("/app/readings.csv", newline="")):
        raw = row["temperature_c"].strip()
        values.setdefault(row["sensor_id"], [])
        if raw in UNUSABLE or float(raw) == -999.0:
            discarded += 1
            continue
        values[row["sensor_id"]].append(float(raw))
    sensors = {
        sid: {"count": len(v), "mean": statistics.mean(v), "median": statistics.median(v),
              "stdev": statistics.stdev(v), "min": min(v), "max": max(v)}
        for sid, v in values.items()
    }
    return {"sensors": sensors, "discarded": discarded}


def main() -> int:
    path = Path("/app/summary.json")
    if not path.is_file():
        print("FAIL: /app/summary.json missing")
        return 1
    try:
        got = json.loads(path.read_text())
    except ValueError as exc:
        print(f"FAIL: not JSON: {exc}")
        return 1
    want = expected()
    problems = []
    if got.get("discarded") != want["discarded"]:
        problems.append(f"discarded: got {got.get('discarded')!r}, expected {want['discarded']}")
    sensors = got.get("sensors") if isinstance(got.get("sensors"), dict) else {}
    if set(sensors) != set(want["sensors"]):
        problems.append(f"sensor ids: got {sorted(sensors)}, expected {sorted(want['sensors'])}")
    for sid, stats in want["sensors"].items():
        for key, ref in stats.items():
            value = sensors.get(sid, {}).get(key)
            if not isinstance(value, (int, float)) or abs(value - ref) > 0.0011:
                problems.append(f"{sid}.{key}: got {value!r}, expected {round(ref, 3)}")
    if problems:
        print("FAIL", *problems, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
