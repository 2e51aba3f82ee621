"""The benchmarks and scripts import the app's functions inside their own functions (so `make bench` starts fast and
each measurement loads only what it measures): a renamed or moved function breaks only the measurement that calls
it, an hour into a run. Every such import is resolved here instead."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("benchmarks/*.py"), *ROOT.glob("scripts/*.py")])
OURS = ("rlx", "benchmarks", "scripts", "tests")


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(OURS):
            yield node.lineno, node.module, [alias.name for alias in node.names]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_from_the_app_exists(path):
    missing = []
    for line, module, names in _imports(path):
        found = importlib.import_module(module)
        for name in names:
            if not hasattr(found, name) and importlib.util.find_spec(f"{module}.{name}") is None:
                missing.append(f"line {line}: {module}.{name}")
    assert not missing, f"{path.name} imports what is not there: {missing}"
