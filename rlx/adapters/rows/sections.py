"""A rows dataset and one of its rows as sections of contract blocks."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section, TaskView


def overview(index) -> list[Section]:
    summary = index.summary
    splits = summary.get("splits") or []
    several = summary.get("several_configs")
    shown = {}
    for row in index.rows:
        key = row.ref.rsplit("/", 1)[0]
        shown[key] = shown.get(key, 0) + 1
    split_rows = [[f"{s['config']}/{s['split']}" if several else s["split"],
                   f"{s['rows']:,} rows" + _listed(shown.get(f"{s['config']}/{s['split']}" if several else s["split"],
                                                             0), s["rows"])] for s in splits]
    origin = {"viewer": "the Hub's dataset viewer", "files": "the data files, read directly"}.get(summary.get("origin"))
    if summary.get("traces_only"):  # recorded runs, listed as rollouts below: no split of tasks to count
        files = summary.get("rollouts") or []
        traces = sum(f.get("records") or len(f.get("traces") or []) for f in files)
        return [Section("summary", "The dataset", [b.kv([("Format", summary.get("processor_label")),
                                                         ("Traces", f"{traces:,} in {len(files):,} file(s)"),
                                                         ("Read from", origin)])])]
    parts = [
        b.kv([("Format", summary.get("processor_label")), ("Rows", f"{summary.get('rows_total', 0):,}"),
              ("Read from", origin)]),
        b.kv(split_rows, title="Splits") if split_rows else b.note("No data files with rows were found.", "warn"),
    ]
    problems = summary.get("problems") or []
    if problems:
        parts.append(b.note("Some data could not be read; the rest of the dataset still reads.\n\n"
                            + "\n".join(f"- {p}" for p in problems[:12]), "warn", title="Problems"))
    sections = [Section("summary", "The dataset", parts)]
    columns = summary.get("columns") or []
    if columns:
        sections.append(Section("columns", "Columns", _column_blocks(columns)))
    return sections


def _listed(listed: int, total: int) -> str:
    return f" (the first {listed:,} listed)" if 0 < listed < total else ""


def _column_blocks(columns: list[dict]) -> list:
    pairs = []
    for col in columns:
        bits = [col.get("type", "")]
        if col.get("rows"):
            bits.append(f"{col.get('filled', 0):,} of {col['rows']:,} filled")
        if col.get("distinct") is not None:
            bits.append(f"{col['distinct']:,} distinct")
        if "min" in col and "max" in col:
            bits.append(f"{_num(col['min'])} to {_num(col['max'])}, mean {_num(col.get('mean'))}")
        if col.get("mean_length"):
            bits.append(f"about {col['mean_length']:,} characters")
        pairs.append([col["name"], ", ".join(str(x) for x in bits if x)])
    # a column whose every value is distinct (an id, a prompt) has nothing frequent: bars of 1 would say nothing
    groups = [{"label": col["name"], "items": col["top"]} for col in columns
              if col.get("top") and max(n for _, n in col["top"]) > 1][:8]
    blocks = [b.kv(pairs, title="Every column shown (the grader's columns are withheld and not listed)")]
    if groups:
        blocks.append(b.stats(groups, title="Most frequent values"))
    return blocks


def _num(value) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3g}"
    return f"{value:,.0f}" if isinstance(value, (int, float)) else str(value)


def task_view(ref: str, task) -> TaskView:
    sections = list(task.sections)
    if task.error:
        sections.insert(0, Section("problem", "Could not read this row", [b.note(task.error, "bad")]))
    return TaskView(ref=ref, title=task.title, sections=sections, withheld=list(task.withheld),
                    facts=dict(task.facts))
