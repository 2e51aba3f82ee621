#!/usr/bin/env bash
# Reference solution: rewrite backup.sh with quoting, an anchored match and a relative, sorted manifest.
set -euo pipefail
cat > /app/backup.sh <<'SCRIPT'
#!/bin/bash
# Nightly backup of the notes folder.
# Usage: backup.sh SRC DEST
# Copies the top-level .txt and .md files of SRC into DEST and writes DEST/MANIFEST.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 SRC DEST" >&2
    exit 2
fi
SRC=$1
DEST=$2

mkdir -p -- "$DEST"

names=()
for path in "$SRC"/*.txt "$SRC"/*.md; do
    [ -f "$path" ] || continue            # unmatched globs and non-regular files
    names+=("$(basename -- "$path")")
done

for name in "${names[@]}"; do
    cp -- "$SRC/$name" "$DEST/$name"
done

(
    cd -- "$DEST"
    if [ "${#names[@]}" -gt 0 ]; then
        printf '%s\0' "${names[@]}" | LC_ALL=C sort -z | xargs -0 sha256sum --
    fi
) > "$DEST/MANIFEST.tmp"
mv -- "$DEST/MANIFEST.tmp" "$DEST/MANIFEST"
echo "backup done: ${#names[@]} files"
SCRIPT
chmod +x /app/backup.sh
