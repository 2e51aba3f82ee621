#!/usr/bin/env bash
# Step 1 verifier: the pristine unit tests plus hidden ones, run against /app/inventory.
set -u
source /tests/helpers.sh
reward_from python3 /tests/test_store.py -v
