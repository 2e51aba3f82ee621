#!/usr/bin/env bash
# ZX-ANSWER-4020
cat > /app/top_words.sh <<'SH'
tr -cs 'A-Za-z' '\n' < "$1" | tr 'A-Z' 'a-z' | grep . | sort | uniq -c | sort -k1,1nr -k2 | head -5 | awk '{print $1, $2}'
SH
