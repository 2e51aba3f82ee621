#!/usr/bin/env bash
# Step 2 reference solution: the report module, then one run of its command line.
set -euo pipefail
cd /app
cat > inventory/report.py <<'PY'
"""Restock report: which SKUs to reorder, and how many units."""

from __future__ import annotations

import csv
import json
import sys

from inventory.store import Store

FIELDS = ["sku", "name", "quantity", "order_quantity"]


def restock_report(store: Store, rules: dict) -> list[dict]:
    discontinued = set(rules.get("discontinued", []))
    overrides = rules.get("overrides", {})
    rows = []
    for item in store.items():
        if item.sku in discontinued:
            continue
        rule = overrides.get(item.sku, rules["default"])
        if item.quantity <= rule["reorder_point"]:
            rows.append({"sku": item.sku, "name": item.name, "quantity": item.quantity,
                         "order_quantity": rule["order_up_to"] - item.quantity})
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m inventory.report STOCK_CSV RULES_JSON OUTPUT_CSV", file=sys.stderr)
        return 2
    stock_csv, rules_json, output_csv = argv
    with open(rules_json) as fh:
        rules = json.load(fh)
    rows = restock_report(Store.load_csv(stock_csv), rules)
    with open(output_csv, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
PY
python3 -m inventory.report stock.csv restock_rules.json restock.csv
cat restock.csv
