#!/usr/bin/env bash
# Install the agents the local sandbox runs, ahead of time and pinned, into one folder (default .tools/agents):
# mini-swe-agent into its own venv on the system Python (/usr/bin/python3, which the sandbox sees) from
# mini-swe-agent.txt, the npm agents from package-lock.json, and MiMo Code (a native linux-x64 program) from
# mimo/package-lock.json. Idempotent: a part whose pins have not changed since its last install is skipped, so CI
# pays the install once per cache. Runs never install anything.
#
#   deploy/agents/install.sh              every part
#   deploy/agents/install.sh mimo npm     only the parts named (mini-swe-agent, npm, mimo)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${RLX_AGENTS_DIR:-$here/../../.tools/agents}"
uv="${UV:-$here/../../.tools/bin/uv}"
parts="${*:-mini-swe-agent npm mimo}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# The pins' contents only (never their paths), so a clone elsewhere finds its install current.
stamp() { cat "$@" | sha256sum | cut -c1-16; }
wanted() { [[ " $parts " == *" $1 "* ]]; }

msa="$dest/mini-swe-agent"
want="$(stamp "$here/mini-swe-agent.txt" "$0")"
if wanted mini-swe-agent && [ -x /usr/bin/python3 ] && [ "$(cat "$msa/.pins" 2>/dev/null)" != "$want" ]; then
  echo "== mini-swe-agent into $msa"
  rm -rf "$msa"
  "$uv" venv --quiet --python /usr/bin/python3 "$msa"
  "$uv" pip install --quiet --python "$msa/bin/python" --require-hashes --compile-bytecode \
    -r "$here/mini-swe-agent.txt"  # compiled now: the sandbox sees the venv read-only, and litellm is large
  echo "$want" > "$msa/.pins"
fi

if wanted npm && command -v npm >/dev/null; then
  want="$(stamp "$here/package.json" "$here/package-lock.json" "$0")"
  if [ "$(cat "$dest/npm/.pins" 2>/dev/null)" != "$want" ]; then
    echo "== npm agents into $dest/npm"
    rm -rf "$dest/npm" && mkdir -p "$dest/npm"
    cp "$here/package.json" "$here/package-lock.json" "$dest/npm/"
    (cd "$dest/npm" && npm ci --no-audit --no-fund --ignore-scripts=false --loglevel=error)
    echo "$want" > "$dest/npm/.pins"
  fi
fi

# MiMo Code publishes a linux-x64 build only; elsewhere it is left out and the run form says why.
mimo="$dest/mimo"
if wanted mimo && command -v npm >/dev/null && [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ]; then
  want="$(stamp "$here/mimo/package.json" "$here/mimo/package-lock.json" "$0")"
  if [ "$(cat "$mimo/.pins" 2>/dev/null)" != "$want" ]; then
    echo "== MiMo Code into $mimo"
    rm -rf "$mimo" && mkdir -p "$mimo"
    cp "$here/mimo/package.json" "$here/mimo/package-lock.json" "$mimo/"
    (cd "$mimo" && npm ci --no-audit --no-fund --loglevel=error)
    # Its first start on an empty data folder creates and migrates its database (seconds to tens of seconds on a
    # busy machine). Done once here; each run starts from a copy of the result (rlx/runs/agent_mimo.py).
    scratch="$(mktemp -d)"
    HOME="$scratch" XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache" \
      XDG_STATE_HOME="$scratch/state" XDG_DATA_HOME="$scratch/data" MIMOCODE_DISABLE_AUTOUPDATE=1 \
      "$mimo/node_modules/@mimo-ai/mimocode-linux-x64/bin/mimo" db path >/dev/null 2>&1
    /usr/bin/python3 - "$scratch/data/mimocode/mimocode.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])  # fold the write-ahead log in: one file to copy
db.execute("pragma wal_checkpoint(truncate)")
db.execute("pragma journal_mode=delete")
db.close()
PY
    mkdir -p "$mimo/data" && cp "$scratch/data/mimocode/mimocode.db" "$mimo/data/mimocode.db"
    rm -rf "$scratch"
    echo "$want" > "$mimo/.pins"
  fi
fi
