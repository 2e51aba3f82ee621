#!/usr/bin/env bash
# Converted from the release's Webdev verifier: the page rendered in a browser, its screenshot graded by a vision judge.
mkdir -p /logs/verifier
exec /usr/bin/python3 /tests/render_judge.py
