"""A general task's environment folder (general/envs/<task_id>/), read once while indexing and described.

- systems: each tools/*.py is an MCP server; its tools are found by parsing the file (never running it):
  functions decorated with `@<x>.tool` / `@tool`, with their signatures and the first line of their docstring;
- databases: each SQLite file opened read-only and immutable: tables, columns and row counts (never the rows);
- workspace: the files the agent starts with;
- the rubric: verifier_meta.json's checks (id, tier, method, weight, question) and its judge prompts, with pass
  anchors and check code withheld by the shared rule.
"""

from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.processors.answers import withhold_answers
from rlx.adapters.rows.processors.mimo import OWN_ANSWER_KEYS
from rlx.adapters.rows.readers import DataFileError
from rlx.sources.errors import SourceError

DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
TEXT_MAX = 256 * 1024  # a tools file or verifier_meta.json larger than this is not parsed
MAX_FILES = 500  # files listed per task folder
MAX_TABLES = 50
MAX_TOOLS = 80


def describe(env, folder: str, entries: list) -> dict:
    """What the folder holds, as plain data for the pack: files, systems, databases, rubric."""
    files = sorted(((e.path[len(folder) + 1:], e.type, e.size) for e in entries), key=lambda f: f[0])[:MAX_FILES]
    out = {"files": files, "systems": [], "databases": [], "workspace": [], "rubric": None, "problems": []}
    for rel, kind, size in files:
        if kind != "file":
            continue
        path = f"{folder}/{rel}"
        try:
            if rel.startswith("tools/") and rel.endswith(".py") and size <= TEXT_MAX:
                out["systems"].append(system_of(rel, env.read_text(path, TEXT_MAX)))
            elif rel.lower().endswith(DB_SUFFIXES):
                out["databases"].append({"path": rel, **database_of(local_file(env, path))})
            elif rel.startswith("workspace/"):
                out["workspace"].append({"path": rel, "size": size})
            elif rel == "verifier_meta.json" and size <= TEXT_MAX:
                out["rubric"] = rubric_of(env.read_text(path, TEXT_MAX))
        except (SourceError, DataFileError, OSError, ValueError) as exc:
            out["problems"].append(f"{rel}: {exc}")
    return out


def system_of(rel: str, text: str) -> dict:
    """One MCP server file: its name and its tools' signatures."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        return {"path": rel, "name": Path(rel).stem, "tools": [], "problem": f"it does not parse as Python ({exc})"}
    name = Path(rel).stem
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node.func) in ("FastMCP", "Server") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            name = node.args[0].value[:80]
            break
    tools = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(_is_tool(d) for d in node.decorator_list):
            doc = (ast.get_docstring(node) or "").strip().splitlines()
            tools.append({"name": node.name, "signature": _signature(node), "doc": doc[0][:200] if doc else ""})
            if len(tools) >= MAX_TOOLS:
                break
    return {"path": rel, "name": name, "tools": tools}


def _call_name(func) -> str:
    return func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")


def _is_tool(decorator) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _call_name(target) == "tool"


def _signature(node) -> str:
    text = f"{node.name}({ast.unparse(node.args)})"
    if node.returns is not None:
        text += f" -> {ast.unparse(node.returns)}"
    return text[:300]


def database_of(path: Path) -> dict:
    """A SQLite file's tables with their columns and row counts, read without writing or locking."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                                              "LIKE 'sqlite_%' ORDER BY name LIMIT ?", (MAX_TABLES,))]
            tables = []
            for name in names:
                quoted = '"' + name.replace('"', '""') + '"'
                columns = [r[1] for r in db.execute(f"PRAGMA table_info({quoted})")]
                rows = db.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
                tables.append({"name": name, "columns": columns[:60], "rows": rows})
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        return {"tables": [], "problem": f"it is not a readable SQLite database ({exc})"}
    return {"tables": tables}


def rubric_of(text: str) -> dict:
    """verifier_meta.json's checks and judge prompts, answers (pass anchors, check code) withheld."""
    try:
        meta = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"verifier_meta.json is not JSON ({exc})") from None
    clean, withheld = withhold_answers(meta, extra_keys=OWN_ANSWER_KEYS)
    clean = clean if isinstance(clean, dict) else {"items": clean}
    items = []
    for item in (clean.get("items") or clean.get("checks") or [])[:200]:
        if isinstance(item, dict):
            items.append({k: item.get(k) for k in ("id", "tier", "method", "weight", "question")})
    prompts = {k: v for k, v in clean.items() if "prompt" in k.lower() and isinstance(v, str)}
    return {"items": items, "prompts": prompts, "withheld": [[w.where, w.why] for w in withheld]}


def clean_verifier_meta(text: str) -> str:
    """verifier_meta.json as the file viewer shows it: the same JSON with the answer fields taken out."""
    try:
        meta = json.loads(text)
    except ValueError:
        return "verifier_meta.json is not JSON; it is withheld."
    clean, _ = withhold_answers(meta, extra_keys=OWN_ANSWER_KEYS)
    return json.dumps(clean, indent=2, ensure_ascii=False)
