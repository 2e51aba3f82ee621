#!/usr/bin/env bash
# Converted from the release's hidden tests: retries=0 means no retry; negative counts are still refused.
mkdir -p /logs/verifier
if python3 - <<'PY'
import sys
sys.path.insert(0, "/app")
import http_client
assert http_client.make_client("https://x", retries=0)["retries"] == 0
assert http_client.make_client("https://x", retries=2)["retries"] == 2
try:
    http_client.make_client("https://x", retries=-1)
except ValueError:
    pass
else:
    raise SystemExit("a negative retry count was accepted")
PY
then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
