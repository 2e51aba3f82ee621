#!/usr/bin/env bash
# Step 2 verifier: checks the function, the command line and the report file named by RESTOCK_OUTPUT.
set -u
source /tests/helpers.sh
reward_from python3 /tests/test_report.py
