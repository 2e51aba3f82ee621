#!/usr/bin/env bash
# Converted from the release's General verifier: a weighted rubric whose judged checks a judge model grades.
mkdir -p /logs/verifier
exec /usr/bin/python3 /tests/judge.py
