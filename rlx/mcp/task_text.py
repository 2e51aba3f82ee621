"""Tasks as the text MCP clients read: the same sections the task page draws (through blocks.to_text), the list
of what was withheld, and task rows as one line each."""

from __future__ import annotations

from rlx.adapters import public
from rlx.adapters.blocks import to_text
from rlx.adapters.contract import Block, Section, TaskRow, TaskView

ROW_FACETS_SHOWN = 6  # facets named on a task's line in a listing
BRIEF_CHARS = 240


def task_as_text(view: TaskView, env_id: str, page_url: str) -> str:
    view = _public_view(view)
    head = [f"# {view.title}", f"Task `{view.ref}` of {env_id}. Page: {page_url}"]
    facts = " · ".join(f"{k}: {v}" for k, v in view.facts.items() if v not in (None, "", []))
    if facts:
        head.append(facts)
    parts = ["\n".join(head)]
    for section in view.sections:
        body = "\n\n".join(to_text(block) for block in section.blocks)
        parts.append(f"# {section.title}\n{body}")
    parts.append(withheld_as_text(view))
    return "\n\n".join(parts)


def withheld_as_text(view: TaskView) -> str:
    if not view.withheld:
        return "# Withheld\nNothing was withheld from this task."
    lines = [f"- {w.where}: {w.why}" for w in view.withheld]
    return "# Withheld (answers are never shown)\n" + "\n".join(lines)


def row_line(row: TaskRow) -> str:
    brief = " ".join((row.brief or "").split())
    if len(brief) > BRIEF_CHARS:
        brief = brief[:BRIEF_CHARS - 1] + "…"
    facets = [f"{k}: {_facet_value(v)}" for k, v in list(row.facets.items())[:ROW_FACETS_SHOWN]
              if v not in (None, "", []) and not str(k).startswith("_")]
    line = f"- `{row.ref}`" + (f" {row.title}" if row.title and row.title != row.ref else "")
    if row.error:
        line += f" (could not be read: {row.error})"
    elif brief:
        line += f": {brief}"
    return line + (f"  [{' · '.join(facets)}]" if facets else "")


def row_data(row: TaskRow) -> dict:
    return {"ref": row.ref, "title": row.title, "brief": row.brief, "facets": public(row.facets),
            **({"error": row.error} if row.error else {})}


def _facet_value(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _public_view(view: TaskView) -> TaskView:
    """A copy whose free-form values have no `_` keys (the JSON API's rule); the adapter's view is untouched."""
    sections = [Section(s.id, s.title, [_public_block(b) for b in s.blocks]) for s in view.sections]
    return TaskView(view.ref, view.title, sections, view.withheld, public(view.facts))


def _public_block(block: Block) -> Block:
    data = block.data
    if block.kind == "value":
        data = {"value": public(data["value"])}
    elif block.kind == "steps":
        data = [{**part, "blocks": [_public_block(b) for b in part["blocks"]]} for part in data]
    elif block.kind == "disclose":
        data = {**data, "blocks": [_public_block(b) for b in data["blocks"]]}
    return Block(block.kind, data, block.title)
