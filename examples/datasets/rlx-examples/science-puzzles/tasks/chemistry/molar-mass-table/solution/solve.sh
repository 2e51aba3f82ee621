#!/usr/bin/env bash
# Reference solution: a stack-based formula parser.
set -euo pipefail
cd /app
python3 - <<'PY'
import csv, re
from collections import Counter

weights = {row["symbol"]: float(row["standard_atomic_weight"])
           for row in csv.DictReader(open("atomic_masses.csv", newline=""))}


def count_atoms(formula: str) -> Counter:
    atoms = Counter()
    for part in formula.split("."):
        mult = re.match(r"\d*", part).group()
        part = part[len(mult):]
        stack = [Counter()]
        for sym, num, opening, closing, gnum in re.findall(
                r"([A-Z][a-z]?)(\d*)|([(\[])|([)\]])(\d*)", part):
            if sym:
                stack[-1][sym] += int(num or 1)
            elif opening:
                stack.append(Counter())
            else:
                inner = stack.pop()
                for el, n in inner.items():
                    stack[-1][el] += n * int(gnum or 1)
        for el, n in stack[0].items():
            atoms[el] += n * int(mult or 1)
    return atoms


with open("molar_masses.csv", "w", newline="") as fh:
    out = csv.writer(fh, lineterminator="\n")
    out.writerow(["formula", "molar_mass_g_mol"])
    for line in open("formulas.txt"):
        formula = line.strip()
        if formula:
            mass = sum(weights[el] * n for el, n in count_atoms(formula).items())
            out.writerow([formula, f"{mass:.3f}"])
PY
cat molar_masses.csv
