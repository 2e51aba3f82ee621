"""Benchmarks at production scale: `make bench` (or `python -m benchmarks.run [--quick]`) writes RESULTS.md.

See README.md here for what each module measures and how to read the figures.
"""
