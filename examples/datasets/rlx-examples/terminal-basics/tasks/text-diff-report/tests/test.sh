#!/usr/bin/env bash
# Verifier: writes three named scores to /logs/verifier/reward.json.
set -u
mkdir -p /logs/verifier
if ! python3 /tests/test_outputs.py /logs/verifier/reward.json; then
  echo '{"added_removed": 0, "changed": 0, "exact_format": 0}' > /logs/verifier/reward.json
fi
cat /logs/verifier/reward.json
