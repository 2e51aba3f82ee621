#!/usr/bin/env bash
# Verifier: compare /app/out/region_totals.csv with totals recomputed from /app/sales.csv.
set -u
mkdir -p /logs/verifier
python3 /tests/test_outputs.py
status=$?
if [ "$status" -eq 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
