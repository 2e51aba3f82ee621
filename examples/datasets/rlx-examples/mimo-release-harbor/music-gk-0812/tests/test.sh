#!/usr/bin/env bash
# Converted from the release's symbolic scorer, reduced to its headers: metre, tempo, length and voices.
mkdir -p /logs/verifier
score=/app/waltz.abc
if [ -f "$score" ] && grep -q '^M:3/4' "$score" && grep -q '^Q:1/4=84' "$score" \
   && [ "$(grep -c '^V:' "$score")" -ge 2 ] && [ "$(grep -o '|' "$score" | wc -l)" -ge 64 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
