#!/bin/bash
# Nightly backup of the notes folder.
# Usage: backup.sh SRC DEST
# Copies the top-level .txt and .md files of SRC into DEST and writes DEST/MANIFEST.

SRC=$1
DEST=$2

mkdir $DEST

for f in $(ls $SRC | grep -E '.txt|.md'); do
    cp $SRC/$f $DEST/
done

sha256sum $DEST/* > $DEST/MANIFEST
echo "backup done"
