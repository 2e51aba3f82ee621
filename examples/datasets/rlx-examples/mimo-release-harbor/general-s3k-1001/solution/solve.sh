#!/usr/bin/env bash
# Reference report (ZX-ANSWER-4903): every invoice not fully paid, totalled by customer.
set -euo pipefail
mkdir -p /workspace/out
/usr/bin/python3 - <<'PY'
import sqlite3
db = sqlite3.connect("/workspace/db/ledger.db")
rows = db.execute("SELECT c.name, i.id, i.amount FROM invoices i JOIN customers c ON c.id = i.customer_id "
                  "WHERE i.amount > (SELECT COALESCE(SUM(p.amount), 0) FROM payments p WHERE p.invoice_id = i.id)"
                  ).fetchall()
totals = {}
for name, _, amount in rows:
    totals[name] = totals.get(name, 0) + amount
lines = ["# Unpaid invoices, Q3", "", "| Customer | Invoices | Total |", "|---|---|---|"]
for name, total in sorted(totals.items(), key=lambda item: -item[1]):
    ids = ", ".join(str(i) for n, i, _ in rows if n == name)
    lines.append(f"| {name} | {ids} | {total:.2f} |")
open("/workspace/out/unpaid.md", "w").write("\n".join(lines) + "\n")
PY
