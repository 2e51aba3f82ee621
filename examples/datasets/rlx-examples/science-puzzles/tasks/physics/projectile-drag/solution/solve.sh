#!/usr/bin/env bash
# Reference solution: RK4 with a 1 ms step and linear interpolation of the landing.
set -euo pipefail
cd /app
python3 - <<'PY'
import csv, math

g, dt = 9.81, 1e-3


def deriv(state, mass, k):
    x, y, vx, vy = state
    speed = math.sqrt(vx * vx + vy * vy)
    return (vx, vy, -k / mass * speed * vx, -g - k / mass * speed * vy)


def step(state, mass, k):
    def add(s, d, h):
        return tuple(a + h * b for a, b in zip(s, d))
    k1 = deriv(state, mass, k)
    k2 = deriv(add(state, k1, dt / 2), mass, k)
    k3 = deriv(add(state, k2, dt / 2), mass, k)
    k4 = deriv(add(state, k3, dt), mass, k)
    return tuple(s + dt / 6 * (a + 2 * b + 2 * c + d) for s, a, b, c, d in zip(state, k1, k2, k3, k4))


with open("launches.csv", newline="") as fh, open("trajectories.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "range_m", "max_height_m", "flight_time_s"])
    for row in csv.DictReader(fh):
        theta = math.radians(float(row["angle_deg"]))
        v0, mass, k = float(row["speed_m_s"]), float(row["mass_kg"]), float(row["drag_k_kg_per_m"])
        state, t, apex = (0.0, 0.0, v0 * math.cos(theta), v0 * math.sin(theta)), 0.0, 0.0
        while True:
            nxt = step(state, mass, k)
            apex = max(apex, nxt[1])
            if nxt[1] < 0:
                w = state[1] / (state[1] - nxt[1])
                rng, flight = state[0] + w * (nxt[0] - state[0]), t + w * dt
                break
            state, t = nxt, t + dt
        writer.writerow([row["id"], f"{rng:.2f}", f"{apex:.2f}", f"{flight:.2f}"])
PY
cat trajectories.csv
