#!/usr/bin/env bash
# Verifier: check /app/app.prod.conf, then run /app/rewrite.sh on a config it has never seen.
set -u
mkdir -p /logs/verifier
if python3 /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
