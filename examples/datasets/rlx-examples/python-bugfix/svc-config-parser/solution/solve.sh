#!/usr/bin/env bash
# Reference solution: a line-oriented parser with explicit table bookkeeping.
set -euo pipefail
cat > /app/confparse.py <<'PY'
"""Reader for the `.svc` service configuration format (see FORMAT.md)."""

from __future__ import annotations

import re
from pathlib import Path

NAME = r"[A-Za-z0-9_-]+"
HEADER = re.compile(r"\[\s*(" + NAME + r"(?:\s*\.\s*" + NAME + r")*)\s*\]")
KEY_LINE = re.compile(r"(" + NAME + r")\s*=(.*)")
BOOLS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _quoted(raw: str, lineno: int) -> str:
    out, i = [], 1
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            if i + 1 >= len(raw) or raw[i + 1] not in ESCAPES:
                raise ValueError(f"line {lineno}: bad escape in string")
            out.append(ESCAPES[raw[i + 1]])
            i += 2
            continue
        if ch == '"':
            rest = raw[i + 1:].strip()
            if rest and not rest.startswith("#"):
                raise ValueError(f"line {lineno}: unexpected text after string")
            return "".join(out)
        out.append(ch)
        i += 1
    raise ValueError(f"line {lineno}: unterminated string")


def _value(raw: str, lineno: int):
    raw = raw.strip()
    if raw.startswith('"'):
        return _quoted(raw, lineno)
    raw = re.split(r"\s#", raw, maxsplit=1)[0].rstrip()
    if raw.lower() in BOOLS:
        return BOOLS[raw.lower()]
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if re.fullmatch(r"-?\d+\.\d+", raw):
        return float(raw)
    return raw


def parse(text: str) -> dict:
    """Parse the text of a .svc file into nested dicts."""
    root: dict = {}
    tables = {id(root)}  # dicts that are tables, as opposed to values
    current = root
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            m = HEADER.fullmatch(stripped)
            if m is None:
                raise ValueError(f"line {lineno}: malformed section header")
            current = root
            for part in (p.strip() for p in m.group(1).split(".")):
                if part not in current:
                    current[part] = {}
                    tables.add(id(current[part]))
                elif id(current[part]) not in tables:
                    raise ValueError(f"line {lineno}: {part!r} is already a value")
                current = current[part]
            continue
        m = KEY_LINE.fullmatch(stripped)
        if m is None:
            raise ValueError(f"line {lineno}: expected 'key = value'")
        key = m.group(1)
        if key in current:
            kind = "table" if isinstance(current[key], dict) else "key"
            raise ValueError(f"line {lineno}: duplicate {kind} {key!r}")
        current[key] = _value(m.group(2), lineno)
    return root


def load(path: str | Path) -> dict:
    """Parse the .svc file at `path`."""
    return parse(Path(path).read_text(encoding="utf-8"))
PY
