#!/usr/bin/env bash
# Verifier: compare /app/trajectories.csv with a fine-step RK4 reference (0.5% tolerance).
set -u
mkdir -p /logs/verifier
if python3 /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
