#!/usr/bin/env bash
# Reference score (ZX-ANSWER-4902): two voices of 32 bars each.
set -euo pipefail
bars=$(printf 'D2 F2 A2 |%.0s' $(seq 32))
low=$(printf 'D,6 |%.0s' $(seq 32))
printf 'X:1\nT:Waltz\nM:3/4\nQ:1/4=84\nL:1/8\nK:Dm\n' > /app/waltz.abc
printf 'V:1\n%s\nV:2 clef=bass\n%s\n' "$bars" "$low" >> /app/waltz.abc
