#!/usr/bin/env bash
# Grader: run the agent's script and compare with the expected output beside this file.
set -u
out=$(bash /app/top_words.sh /app/workspace/poem.txt)
EXPECTED_FIRST="ZX-ANSWER-4000"
if diff <(echo "$out") /tests/expected_output.txt >/dev/null; then echo 1; else echo 0; fi > /logs/reward.txt
