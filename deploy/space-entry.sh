#!/bin/sh
# The Space's command: the web app and its two RQ workers under one `rlx serve` (which also starts an embedded
# Redis when REDIS_URL is unset). Every default below is a plain environment variable, so the same line runs on a
# laptop: STORAGE_DIR=/tmp/data PORT=8000 RLX_HOST=127.0.0.1 deploy/space-entry.sh
set -eu
export STORAGE_DIR="${STORAGE_DIR:-/data}"
# The snapshot copy and the metrics folder are per host: local disk, never the shared bucket.
export RLX_CACHE_DIR="${RLX_CACHE_DIR:-${HOME:-/tmp}/rlx-cache}"
exec rlx serve --host "${RLX_HOST:-0.0.0.0}" --port "${PORT:-7860}" --workers "${WEB_WORKERS:-2}" --with-workers
