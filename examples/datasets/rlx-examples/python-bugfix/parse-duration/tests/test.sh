#!/usr/bin/env bash
# Verifier: run the behavioural checks against /app/durations.py.
set -u
mkdir -p /logs/verifier
if python3 /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
