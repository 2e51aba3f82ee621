"""Column statistics for the environment page, over rows already free of answers (a withheld column never
appears, not even as a name), or taken from the dataset viewer's /statistics with answer columns left out."""

from __future__ import annotations

from collections import Counter

from rlx.adapters.rows.processors.common import is_chat

MAX_COLUMNS = 40
TOP_VALUES = 8
SHORT = 60


def column_stats(rows: list[dict]) -> list[dict]:
    """[{name, type, filled, distinct, top: [[value, n]], min, max, mean}] over `rows` (answers already out)."""
    names: list[str] = []
    for row in rows:
        for key in row:
            if key not in names and not str(key).startswith("_"):
                names.append(key)
    out = []
    for name in names[:MAX_COLUMNS]:
        values = [row.get(name) for row in rows if row.get(name) not in (None, "", [], {})]
        out.append(_one(str(name), values, len(rows)))
    return out


def _one(name: str, values: list, total: int) -> dict:
    stat = {"name": name, "type": _type_of(values), "filled": len(values), "rows": total}
    if stat["type"] in ("text", "bool") or stat["type"] == "number" and len({*map(str, values)}) <= 20:
        short = [str(v) for v in values if not isinstance(v, str) or len(v) <= SHORT]
        counts = Counter(short)
        stat["distinct"] = len(counts)
        if 1 < len(counts) <= max(20, total // 3) and len(short) == len(values):
            stat["top"] = [[v, n] for v, n in counts.most_common(TOP_VALUES)]
    if stat["type"] == "number":
        numbers = [float(v) for v in values]
        stat.update(min=min(numbers), max=max(numbers), mean=round(sum(numbers) / len(numbers), 3))
    if stat["type"] == "text":
        stat["mean_length"] = round(sum(len(str(v)) for v in values) / len(values)) if values else 0
    return stat


def _type_of(values: list) -> str:
    if not values:
        return "empty"
    kinds = set()
    for value in values[:200]:
        if isinstance(value, bool):
            kinds.add("bool")
        elif isinstance(value, (int, float)):
            kinds.add("number")
        elif isinstance(value, str):
            kinds.add("text")
        elif is_chat(value):
            kinds.add("chat")
        elif isinstance(value, list):
            kinds.add("list")
        elif isinstance(value, dict):
            kinds.add("object")
        else:
            kinds.add(type(value).__name__)
    return kinds.pop() if len(kinds) == 1 else "mixed"


def viewer_stats(payload: dict, is_withheld) -> list[dict]:
    """The viewer's /statistics answer in our shape, without any column `is_withheld(name)` says is an answer."""
    out = []
    for item in (payload.get("statistics") or [])[:MAX_COLUMNS]:
        name = str(item.get("column_name", ""))
        if not name or is_withheld(name):
            continue
        col = item.get("column_statistics") or {}
        total = int(payload.get("num_examples") or 0)
        stat = {"name": name, "type": str(item.get("column_type", "")), "rows": total,
                "filled": total - int(col.get("nan_count") or 0)}
        frequencies = col.get("frequencies")
        if isinstance(frequencies, dict):
            stat["distinct"] = int(col.get("n_unique") or len(frequencies))
            stat["top"] = [[str(k), int(v)] for k, v in sorted(frequencies.items(), key=lambda kv: -kv[1])[:8]]
        for key in ("min", "max", "mean"):
            if isinstance(col.get(key), (int, float)):
                stat[key] = col[key]
        out.append(stat)
    return out
