"""The dataset viewer's routes for the Hub stand-in: /is-valid, /splits, /info, /first-rows, /rows, /search,
/filter and /statistics, in the viewer's own shapes (pages of at most 100 rows, errors with X-Error-Code).

It reads a dataset repository's data files (parquet, JSON Lines, CSV; its card's `configs`, else one "default"
config split by file name) on its own, without the app's code, so a test of the app's viewer client compares
the app with an independent reader. A repository whose `.hub.json` says `"viewer": false` is not served, as
the real viewer does for datasets it cannot read. Faults (5xx, slow answers) come from the Hub stand-in's
`fail` and `slow` switches, which apply to these routes too.
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import re
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

ROUTES = ("/is-valid", "/splits", "/info", "/first-rows", "/rows", "/search", "/filter", "/statistics")
PAGE_MAX = 100
SPLIT_WORDS = ("train", "validation", "test")


class ViewerError(Exception):
    def __init__(self, status: int, message: str, code: str):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


def answer(hub, req) -> tuple[int, dict, bytes]:
    """Answer one viewer request (`req.path` is one of ROUTES)."""
    params = dict(req.query)
    try:
        return _json(200, _route(hub, req, params))
    except ViewerError as err:
        return _json(err.status, {"error": err.message}, {"X-Error-Code": err.code})


def _route(hub, req, params: dict) -> dict:
    dataset = _need(params, "dataset")
    repo = hub.repos.get(("dataset", dataset))
    visible = repo is not None and hub._visible(repo, req.ident) and not (
        repo.prop("gated") and not (req.ident is not None and req.ident.granted(repo)))
    served = visible and repo.meta.get("viewer", True) is not False
    if req.path == "/is-valid":
        return {k: bool(served) for k in ("viewer", "preview", "search", "filter", "statistics")}
    if not served:
        raise ViewerError(404, "The dataset does not exist, or is not accessible without authentication (private "
                               "or gated). Please check the spelling of the dataset name or retry with "
                               "authentication.", "ResponseNotFound")
    tables = _tables(repo)
    if req.path == "/splits":
        return {"splits": [{"dataset": dataset, "config": c, "split": s} for c, s in tables], "pending": [],
                "failed": []}
    config = _need(params, "config")
    if req.path == "/info":
        splits = {s: {"name": s, "num_bytes": 0, "num_examples": len(rows), "dataset_name": dataset}
                  for (c, s), rows in tables.items() if c == config}
        if not splits:
            raise ViewerError(404, "Not found.", "ResponseNotFound")
        first = next(rows for (c, _), rows in tables.items() if c == config)
        return {"dataset_info": {"config_name": config, "dataset_name": dataset, "splits": splits,
                                 "features": {f["name"]: f["type"] for f in _features(first)}}, "partial": False}
    split = _need(params, "split")
    rows = tables.get((config, split))
    if rows is None:
        raise ViewerError(404, "Not found.", "ResponseNotFound")
    head = {"dataset": dataset, "config": config, "split": split, "features": _features(rows)}
    if req.path == "/first-rows":
        return {**head, "rows": _page(rows[:PAGE_MAX], 0), "truncated": len(rows) > PAGE_MAX}
    if req.path == "/statistics":
        return {"num_examples": len(rows), "statistics": _statistics(rows), "partial": False}
    offset, length = _int(params, "offset", 0), _int(params, "length", PAGE_MAX)
    if length > PAGE_MAX or offset < 0 or length < 0:
        raise ViewerError(422, f"Parameter 'length' must be between 0 and {PAGE_MAX}, and 'offset' positive.",
                          "InvalidParameter")
    if req.path == "/search":
        words = _need(params, "query").lower()
        matched = [(i, r) for i, r in enumerate(rows)
                   if any(isinstance(v, str) and words in v.lower() for v in r.values())]
    elif req.path == "/filter":
        test = _where(_need(params, "where"))
        matched = [(i, r) for i, r in enumerate(rows) if test(r)]
    else:
        matched = list(enumerate(rows))
    chosen = matched[offset: offset + length]
    return {**head, "rows": [{"row_idx": i, "row": r, "truncated_cells": []} for i, r in chosen],
            "num_rows_total": len(matched), "num_rows_per_page": PAGE_MAX, "partial": False}


def _need(params: dict, name: str) -> str:
    value = params.get(name)
    if not value:
        raise ViewerError(422, f"Parameter '{name}' is required", "MissingRequiredParameter")
    return value


def _int(params: dict, name: str, default: int) -> int:
    try:
        return int(params.get(name, default))
    except ValueError:
        raise ViewerError(422, f"Parameter '{name}' must be an integer", "InvalidParameter") from None


def _page(rows: list[dict], start: int) -> list[dict]:
    return [{"row_idx": start + i, "row": r, "truncated_cells": []} for i, r in enumerate(rows)]


def _tables(repo) -> dict[tuple[str, str], list[dict]]:
    """(config, split) -> rows, read from the repository's files (cached on the repository)."""
    cached = getattr(repo, "_viewer_tables", None)
    if cached is not None:
        return cached
    data = sorted(p for p in repo.files if re.search(r"\.(parquet|jsonl|csv)$", p))
    groups: dict[tuple[str, str], list[str]] = {}
    configs = repo.card.get("configs") if isinstance(repo.card.get("configs"), list) else []
    for config in configs:
        for item in config.get("data_files") or []:
            files = [p for p in data if fnmatch.fnmatch(p, item["path"])]
            groups.setdefault((config.get("config_name", "default"), item.get("split", "train")), []).extend(files)
    if not groups:
        for path in data:
            split = next((w for w in SPLIT_WORDS if w in path.lower()), "train")
            groups.setdefault(("default", split), []).append(path)
    order = {w: i for i, w in enumerate(SPLIT_WORDS)}  # the viewer lists train, validation, test
    keys = sorted(groups, key=lambda k: (order.get(k[1], len(order)), k[1])) if not configs else list(groups)
    tables = {key: [row for path in groups[key] for row in _read(path, repo.files[path])] for key in keys}
    repo._viewer_tables = tables
    return tables


def _read(path: str, data: bytes) -> list[dict]:
    if path.endswith(".parquet"):
        return pq.read_table(pa.BufferReader(data)).to_pylist()
    if path.endswith(".csv"):
        return list(csv.DictReader(io.StringIO(data.decode())))
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


def _features(rows: list[dict]) -> list[dict]:
    names = list(dict.fromkeys(k for r in rows[:100] for k in r))
    return [{"feature_idx": i, "name": n, "type": _type(next((r.get(n) for r in rows if r.get(n) is not None), None))}
            for i, n in enumerate(names)]


def _type(value) -> dict:
    if isinstance(value, bool):
        return {"dtype": "bool", "_type": "Value"}
    if isinstance(value, int):
        return {"dtype": "int64", "_type": "Value"}
    if isinstance(value, float):
        return {"dtype": "float64", "_type": "Value"}
    if isinstance(value, list):
        return {"feature": _type(value[0] if value else None), "_type": "List"}
    if isinstance(value, dict):
        return {k: _type(v) for k, v in value.items()}
    return {"dtype": "string", "_type": "Value"}


def _statistics(rows: list[dict]) -> list[dict]:
    out = []
    for feature in _features(rows):
        name = feature["name"]
        values = [r.get(name) for r in rows]
        present = [v for v in values if v is not None]
        nan = len(values) - len(present)
        base = {"nan_count": nan, "nan_proportion": round(nan / len(values), 5) if values else 0}
        if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            stats = {**base, "min": min(present), "max": max(present),
                     "mean": round(sum(present) / len(present), 5)}
            out.append({"column_name": name, "column_type": "int" if all(isinstance(v, int) for v in present)
                        else "float", "column_statistics": stats})
        elif present and all(isinstance(v, str) for v in present):
            counts = Counter(present)
            if len(counts) <= 30:
                stats = {**base, "no_label_count": 0, "no_label_proportion": 0.0, "n_unique": len(counts),
                         "frequencies": dict(counts)}
                out.append({"column_name": name, "column_type": "string_label", "column_statistics": stats})
            else:
                lengths = [len(v) for v in present]
                out.append({"column_name": name, "column_type": "string_text", "column_statistics": {
                    **base, "min": min(lengths), "max": max(lengths), "mean": sum(lengths) / len(lengths)}})
    return out


_CLAUSE = re.compile(r'^\s*"([^"]+)"\s*=\s*(\'(?:[^\']|\'\')*\'|-?\d+(?:\.\d+)?)\s*$')


def _where(text: str):
    """The viewer's SQL-like `where`, for the part tests use: "col"='text' or "col"=3, joined by AND."""
    tests = []
    for clause in re.split(r"\s+AND\s+", text, flags=re.I):
        match = _CLAUSE.match(clause)
        if not match:
            raise ViewerError(400, "Parameter 'where' is invalid", "InvalidParameter")
        column, literal = match.groups()
        value = literal[1:-1].replace("''", "'") if literal.startswith("'") else float(literal)
        tests.append((column, value))
    return lambda row: all((row.get(c) == v) if isinstance(v, str) else (row.get(c) is not None and float(
        row.get(c)) == v) for c, v in tests)


def _json(status: int, payload, headers: dict | None = None) -> tuple[int, dict, bytes]:
    body = json.dumps(payload, default=str).encode()
    return status, {"Content-Type": "application/json", **(headers or {})}, body
