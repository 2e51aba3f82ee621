"""Checks inventory.report.restock_report, its command line, and the committed report file."""
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, "/app")


def reference(store, rules):
    rows = []
    for item in store.items():
        if item.sku in rules.get("discontinued", []):
            continue
        rule = rules.get("overrides", {}).get(item.sku, rules["default"])
        if item.quantity <= rule["reorder_point"]:
            rows.append({"sku": item.sku, "name": item.name, "quantity": item.quantity,
                         "order_quantity": rule["order_up_to"] - item.quantity})
    return rows


def as_csv_rows(rows):
    return [[r["sku"], r["name"], str(r["quantity"]), str(r["order_quantity"])] for r in rows]


def main() -> int:
    try:
        from inventory import Store
        from inventory.report import restock_report
    except Exception as exc:  # noqa: BLE001
        print(f"FAIL: cannot import inventory.report: {exc!r}")
        return 1
    failures = []
    rules = json.loads(Path("/app/restock_rules.json").read_text())
    store = Store.load_csv("/app/stock.csv")
    want = reference(store, rules)
    if restock_report(store, rules) != want:
        failures.append(f"restock_report on stock.csv: got {restock_report(store, rules)!r}")
    synthetic = Store()
    for sku, qty in [("Z-9", 0), ("A-1", 5), ("M-5", 6), ("B-2", 50)]:
        synthetic.add_item(sku, f"part {sku}", qty, "1.00")
    other = {"default": {"reorder_point": 5, "order_up_to": 20},
             "overrides": {"B-2": {"reorder_point": 60, "order_up_to": 80}}, "discontinued": ["Z-9"]}
    if restock_report(synthetic, other) != reference(synthetic, other):
        failures.append(f"restock_report on other data: got {restock_report(synthetic, other)!r}")
    output = Path(os.environ.get("RESTOCK_OUTPUT", "/app/restock.csv"))
    header = ["sku", "name", "quantity", "order_quantity"]
    if not output.is_file():
        failures.append(f"{output} does not exist")
    elif list(csv.reader(output.open(newline=""))) != [header] + as_csv_rows(want):
        failures.append(f"{output} content is wrong")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.csv"
        res = subprocess.run([sys.executable, "-m", "inventory.report", "/app/stock.csv",
                              "/app/restock_rules.json", str(out)], cwd="/app", capture_output=True, text=True)
        if res.returncode != 0 or not out.is_file():
            failures.append(f"command line failed: {res.stderr.strip()}")
    res = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd="/app",
                         capture_output=True, text=True)
    if res.returncode != 0:
        failures.append("the unit tests in /app/tests fail again")
    if failures:
        print("FAIL", *failures, sep="\n  ")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
