"""The floor plan, checked from the code: no module of rlx imports itself back through others (a circle makes
every module in it load, and be understood, only with all the others), and no package below the web layer imports
rlx.web (the guards, loaders and jobs they need live below it). Imports inside functions count as much as those at
the top: deferring an import hides a circle, it does not remove it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RLX = Path(__file__).resolve().parent.parent / "rlx"
BELOW_WEB = ("auth", "mcp", "http", "adapters", "sources", "store", "snapshot", "runs", "jobs", "queue", "live", "admin",
             "catalog")


def module_files(root: Path = RLX) -> dict[str, Path]:
    """Dotted module name -> its file, for every .py under `root` (a package is its __init__.py)."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the rlx modules it imports (`from a.b import c` is a.b.c when c is a module, else a.b)."""
    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {known(alias.name) for alias in node.names if alias.name.split(".")[0] == "rlx"}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                if base.split(".")[0] != "rlx":
                    continue
                targets |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else known(base)
                            for alias in node.names}
        graph[name] = targets - {None, name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    order, low, stack, on_stack, found, counter = {}, {}, [], set(), [], 0
    for start in sorted(graph):
        if start in order:
            continue
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in order:
                    order[step] = low[step] = counter
                    counter += 1
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], order[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def describe(group: list[str], graph: dict[str, set[str]]) -> str:
    members = set(group)
    return "; ".join(f"{m} -> {', '.join(sorted(graph[m] & members))}" for m in group)


@pytest.fixture(scope="module")
def graph():
    return import_graph(module_files())


def test_no_module_of_rlx_imports_itself_back(graph):
    found = circles(graph)
    assert not found, "import circles: " + " | ".join(describe(group, graph) for group in found)


def test_no_package_below_the_web_layer_imports_it(graph):
    upward = sorted(f"{name} imports {target}" for name, targets in graph.items()
                    if name.split(".")[1:2] and name.split(".")[1] in BELOW_WEB
                    for target in targets if target == "rlx.web" or target.startswith("rlx.web."))
    assert not upward, "imports up into rlx.web: " + "; ".join(upward)


def test_the_graph_sees_a_circle_and_an_upward_import_when_there_is_one(tmp_path):
    """The checks above only mean something if the graph finds what they look for: a small tree with both."""
    root = tmp_path / "rlx"
    for folder in ("runs", "web"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "runs" / "a.py").write_text("from rlx.runs import b\n")
    (root / "runs" / "b.py").write_text("def f():\n    from .a import x\n    from rlx.web.page import y\n")
    (root / "web" / "page.py").write_text("")
    small = import_graph(module_files(root))
    assert circles(small) == [["rlx.runs.a", "rlx.runs.b"]]
    assert "rlx.web.page" in small["rlx.runs.b"]
