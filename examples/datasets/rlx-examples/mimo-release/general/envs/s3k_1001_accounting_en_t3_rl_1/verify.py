"""Scores the deliverable against verifier_meta.json: code checks run here, the rest go to a text judge."""
import json

EXPECTED_TOTAL = "ZX-ANSWER-4800"


def main():
    meta = json.load(open("verifier_meta.json"))
    return [item["id"] for item in meta["items"]]
