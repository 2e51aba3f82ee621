"""Recomputes the per-region roll-up with Decimal arithmetic and compares it line by line."""
import csv
import re
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

SALES = Path("/app/sales.csv")
OUT = Path("/app/out/region_totals.csv")


def expected_lines() -> list[str]:
    totals: dict[str, list] = {}
    with SALES.open(newline="") as fh:
        for row in csv.DictReader(fh):
            units_txt, price_txt = row["units"].strip(), row["unit_price"].strip()
            if not re.fullmatch(r"[0-9]+", units_txt) or int(units_txt) == 0:
                continue
            try:
                price = Decimal(price_txt)
            except InvalidOperation:
                continue
            if not price.is_finite():
                continue
            region = row["region"].strip().lower()
            entry = totals.setdefault(region, [0, 0, Decimal(0)])
            entry[0] += 1
            entry[1] += int(units_txt)
            entry[2] += int(units_txt) * price
    ordered = sorted(totals.items(), key=lambda kv: (-kv[1][2], kv[0]))
    lines = ["region,orders,units,revenue"]
    lines += [f"{r},{o},{u},{rev.quantize(Decimal('0.01'))}" for r, (o, u, rev) in ordered]
    return lines


def main() -> int:
    if not OUT.is_file():
        print(f"FAIL: {OUT} does not exist")
        return 1
    got = OUT.read_text().rstrip("\n").split("\n")
    want = expected_lines()
    if got != want:
        print("FAIL: region_totals.csv differs")
        print("expected:", *want, sep="\n  ")
        print("got:", *got, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
