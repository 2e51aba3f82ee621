"""RK4 reference integration of each launch; the agent's table must agree within 0.5%."""
import csv
import math
import sys
from pathlib import Path

G, DT = 9.81, 5e-4


def simulate(speed, angle, mass, k):
    a = math.radians(angle)
    s = [0.0, 0.0, speed * math.cos(a), speed * math.sin(a)]

    def f(st):
        _x, _y, vx, vy = st
        v = math.hypot(vx, vy)
        return [vx, vy, -k * v * vx / mass, -G - k * v * vy / mass]

    t, top = 0.0, 0.0
    while True:
        k1 = f(s)
        k2 = f([p + DT / 2 * d for p, d in zip(s, k1)])
        k3 = f([p + DT / 2 * d for p, d in zip(s, k2)])
        k4 = f([p + DT * d for p, d in zip(s, k3)])
        new = [p + DT / 6 * (a1 + 2 * a2 + 2 * a3 + a4) for p, a1, a2, a3, a4 in zip(s, k1, k2, k3, k4)]
        top = max(top, new[1])
        if new[1] < 0:
            frac = s[1] / (s[1] - new[1])
            return s[0] + frac * (new[0] - s[0]), top, t + frac * DT
        s, t = new, t + DT


def main() -> int:
    out = Path("/app/trajectories.csv")
    if not out.is_file():
        print("FAIL: /app/trajectories.csv missing")
        return 1
    launches = list(csv.DictReader(open("/app/launches.csv", newline="")))
    rows = list(csv.DictReader(open(out, newline="")))
    if [r.get("id") for r in rows] != [l["id"] for l in launches]:
        print("FAIL: ids missing or out of order")
        return 1
    bad = []
    for launch, row in zip(launches, rows):
        want = simulate(float(launch["speed_m_s"]), float(launch["angle_deg"]),
                        float(launch["mass_kg"]), float(launch["drag_k_kg_per_m"]))
        for name, ref in zip(("range_m", "max_height_m", "flight_time_s"), want):
            try:
                got = float(row[name])
            except (KeyError, TypeError, ValueError):
                bad.append(f"{launch['id']} {name}: missing or not a number")
                continue
            if abs(got - ref) > max(0.005 * abs(ref), 0.011):
                bad.append(f"{launch['id']} {name}: got {got}, expected about {ref:.2f}")
    if bad:
        print("FAIL", *bad, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
