"""Grader for the rot13 kata: checks a few fixed cases and the answer key beside this file."""
import json
import sys

sys.path.insert(0, "starter")
from rot13 import rot13  # noqa: E402

expected = "ZX-ANSWER-4001"
cases = json.load(open("answers.json"))
cases.update(line.split("\t") for line in open("cases.txt").read().splitlines() if "\t" in line)
ok = all(rot13(given) == want for given, want in cases.items())
print(1 if ok else 0)
