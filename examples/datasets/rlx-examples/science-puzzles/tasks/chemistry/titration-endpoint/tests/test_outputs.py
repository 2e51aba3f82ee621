"""Recomputes the steepest-slope midpoint from the readings and checks the agent's JSON."""
import csv
import json
import sys
from pathlib import Path

RESULT = Path("/app/titration_result.json")


def reference():
    rows = [(float(r["volume_naoh_ml"]), float(r["ph"]))
            for r in csv.DictReader(open("/app/titration.csv", newline=""))]
    slopes = [((p2 - p1) / (v2 - v1), (v1 + v2) / 2) for (v1, p1), (v2, p2) in zip(rows, rows[1:])]
    v_eq = max(slopes)[1]
    return v_eq, 0.1000 * v_eq / 25.00


def main() -> int:
    if not RESULT.is_file():
        print("FAIL: /app/titration_result.json missing")
        return 1
    try:
        got = json.loads(RESULT.read_text())
        v, c = got["equivalence_volume_ml"], got["acid_concentration_mol_l"]
    except (ValueError, KeyError, TypeError) as exc:
        print(f"FAIL: unreadable result: {exc!r}")
        return 1
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (v, c)):
        print("FAIL: values must be JSON numbers")
        return 1
    v_ref, c_ref = reference()
    if abs(v - v_ref) > 0.006 or abs(c - c_ref) > 0.00006:
        print(f"FAIL: got V_eq={v}, c={c}; expected about {v_ref:.2f} mL, {c_ref:.4f} mol/L")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
