"""What the app imports is what a fresh install installs: every package rlx and its workers import at run time is
in uv.lock's resolution of the app's own dependencies. A developer's venv holds every group (the benchmarks bring
numpy, for one), so an import of something only another package brought along works here and fails on a fresh
machine, in `make demo` and in production."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_TIME = (ROOT / "rlx", ROOT / "workers")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_for_the_app(lock: dict) -> set[str]:
    """The distributions a fresh install of the app itself gets: its dependencies in uv.lock, and theirs (any
    extras and platform markers counted, so this can only say too much)."""
    packages = {_normalized(p["name"]): p for p in lock["package"]}
    seen: set[str] = set()
    todo = [_normalized(d["name"]) for d in packages["rlx"].get("dependencies", [])]
    while todo:
        name = todo.pop()
        if name in seen or name not in packages:
            continue
        seen.add(name)
        package = packages[name]
        todo += [_normalized(d["name"]) for d in package.get("dependencies", [])]
        for extra in package.get("optional-dependencies", {}).values():
            todo += [_normalized(d["name"]) for d in extra]
    return seen


def _is_optional(node: ast.Try) -> bool:
    """A try whose handler catches ImportError: what it imports may be missing."""
    for handler in node.handlers:
        caught = handler.type
        names = [caught] if not isinstance(caught, ast.Tuple) else list(caught.elts)
        if any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names):
            return True
    return False


def imported_packages(roots=RUN_TIME) -> dict[str, str]:
    """Each top-level package imported outside the standard library and our own code -> one file importing it."""
    found: dict[str, str] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            optional = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try) and _is_optional(t)
                        for statement in t.body for n in ast.walk(statement)}
            for node in ast.walk(tree):
                if id(node) in optional:
                    continue
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in ("rlx", "workers", "__future__"):
                        found.setdefault(top, str(path.relative_to(root.parent)))
    return found


def missing_from_a_fresh_install(imports: dict[str, str], installed: set[str]) -> list[str]:
    providers = importlib.metadata.packages_distributions()
    missing = []
    for top, where in sorted(imports.items()):
        dists = {_normalized(d) for d in providers.get(top, [])}
        if not dists & installed:
            missing.append(f"{top} (imported by {where}; from {', '.join(sorted(dists)) or 'nothing installed'})")
    return missing


def test_every_package_the_app_imports_comes_with_its_own_dependencies():
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    missing = missing_from_a_fresh_install(imported_packages(), installed_for_the_app(lock))
    assert not missing, "not installed by a fresh `uv sync` of the app: " + "; ".join(missing)


def test_the_check_sees_a_package_only_a_benchmark_brings(tmp_path):
    (tmp_path / "plot.py").write_text("import numpy as np\ntry:\n    import nothing_like_it\nexcept ImportError:\n"
                                      "    nothing_like_it = None\n")
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    imports = imported_packages((tmp_path,))
    assert set(imports) == {"numpy"}  # the guarded import is optional
    assert [m.split()[0] for m in missing_from_a_fresh_install(imports, installed_for_the_app(lock))] == ["numpy"]
