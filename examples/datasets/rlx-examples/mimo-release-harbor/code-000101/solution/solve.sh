#!/usr/bin/env bash
# Reference fix (ZX-ANSWER-4901): accept 0, refuse only negative counts.
set -euo pipefail
sed -i 's/if retries < 1:/if retries < 0:/; s/at least 1/0 or more/' /app/http_client.py
