"""Independent formula parser (recursive descent) and a row-by-row comparison."""
import csv
import re
import sys
from pathlib import Path

MASSES = {r["symbol"]: float(r["standard_atomic_weight"])
          for r in csv.DictReader(open("/app/atomic_masses.csv", newline=""))}
TOKEN = re.compile(r"[A-Z][a-z]?|\d+|[()\[\]]")
CLOSE = {"(": ")", "[": "]"}


def group_mass(tokens, i, closer):
    total = 0.0
    while i < len(tokens) and tokens[i] != closer:
        tok = tokens[i]
        if tok in CLOSE:
            mass, i = group_mass(tokens, i + 1, CLOSE[tok])
            i += 1  # the closing bracket
        else:
            mass, i = MASSES[tok], i + 1
        count = 1
        if i < len(tokens) and tokens[i].isdigit():
            count, i = int(tokens[i]), i + 1
        total += mass * count
    return total, i


def molar_mass(formula):
    total = 0.0
    for part in formula.split("."):
        m = re.match(r"(\d*)(.*)", part)
        tokens = TOKEN.findall(m.group(2))
        assert "".join(tokens) == m.group(2), formula
        mass, _ = group_mass(tokens, 0, None)
        total += (int(m.group(1)) if m.group(1) else 1) * mass
    return total


def main() -> int:
    out = Path("/app/molar_masses.csv")
    if not out.is_file():
        print("FAIL: /app/molar_masses.csv missing")
        return 1
    formulas = [line.strip() for line in open("/app/formulas.txt") if line.strip()]
    rows = list(csv.reader(open(out, newline="")))
    if not rows or rows[0] != ["formula", "molar_mass_g_mol"] or [r[0] for r in rows[1:]] != formulas:
        print("FAIL: header or formula column wrong")
        return 1
    bad = []
    for formula, value in rows[1:]:
        want = round(molar_mass(formula), 3)
        if not re.fullmatch(r"\d+\.\d{3}", value) or abs(float(value) - want) > 0.0015:
            bad.append(f"{formula}: got {value}, expected {want:.3f}")
    if bad:
        print("FAIL", *bad, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
