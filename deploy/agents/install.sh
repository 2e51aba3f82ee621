#!/usr/bin/env bash
# Install the agents the local sandbox runs, ahead of time and pinned, into one folder (default .tools/agents):
# mini-swe-agent into its own venv on the system Python (/usr/bin/python3, which the sandbox sees) from
# mini-swe-agent.txt, and the npm agents from package-lock.json. Idempotent: a part whose pins have not changed
# since its last install is skipped, so CI pays the install once per cache. Runs never install anything.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${RLX_AGENTS_DIR:-$here/../../.tools/agents}"
uv="${UV:-$here/../../.tools/bin/uv}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

stamp() { sha256sum "$@" | sha256sum | cut -c1-16; }

msa="$dest/mini-swe-agent"
want="$(stamp "$here/mini-swe-agent.txt" "$0")"
if [ -x /usr/bin/python3 ] && [ "$(cat "$msa/.pins" 2>/dev/null)" != "$want" ]; then
  echo "== mini-swe-agent into $msa"
  rm -rf "$msa"
  "$uv" venv --quiet --python /usr/bin/python3 "$msa"
  "$uv" pip install --quiet --python "$msa/bin/python" --require-hashes --compile-bytecode \
    -r "$here/mini-swe-agent.txt"  # compiled now: the sandbox sees the venv read-only, and litellm is large
  echo "$want" > "$msa/.pins"
fi

if command -v npm >/dev/null; then
  want="$(stamp "$here/package.json" "$here/package-lock.json" "$0")"
  if [ "$(cat "$dest/npm/.pins" 2>/dev/null)" != "$want" ]; then
    echo "== npm agents into $dest/npm"
    rm -rf "$dest/npm" && mkdir -p "$dest/npm"
    cp "$here/package.json" "$here/package-lock.json" "$dest/npm/"
    (cd "$dest/npm" && npm ci --no-audit --no-fund --ignore-scripts=false --loglevel=error)
    echo "$want" > "$dest/npm/.pins"
  fi
fi
