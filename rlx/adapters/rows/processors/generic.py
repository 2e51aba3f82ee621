"""Any table of prompts: column roles inferred from names and values (the processor of last resort)."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.key_labels import labelled
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowTask

PROMPT_NAMES = ("prompt", "question", "problem", "instruction", "instructions", "query", "input", "task",
                "messages", "conversation", "conversations", "text", "content", "description", "problem_statement")
TITLE_NAMES = ("title", "name", "task_name", "summary")
ID_NAMES = ("id", "task_id", "instance_id", "uid", "uuid", "example_id", "problem_id", "idx")
SYSTEM_NAMES = ("system", "system_prompt", "system_message")
FACET_NAMES = ("difficulty", "level", "category", "categories", "topic", "subject", "domain", "type", "task_type",
               "language", "lang", "source", "tags", "task", "ability", "data_source", "env_class", "split",
               "agent_name", "environment", "dataset", "license")


def prompt_column(row: dict) -> str | None:
    """The column holding what the agent is asked: a known name first, else the longest text."""
    for name in PROMPT_NAMES:
        if name in row and (c.is_chat(row[name]) or (isinstance(row[name], str) and row[name].strip())):
            return name
    texts = [(len(v), k) for k, v in row.items() if isinstance(v, str) and len(v) > 20 and k not in ID_NAMES]
    return max(texts)[1] if texts else None


def prompt_blocks(row: dict, column: str | None, system_column: str | None = None):
    """(blocks showing the prompt, its text for the title and brief)."""
    if column is None:
        return [b.note("No column reads as the prompt; every field is listed below.", "warn")], ""
    messages = c.chat(row[column])
    if messages is not None:
        if system_column and isinstance(row.get(system_column), str):
            messages = [{"role": "system", "content": row[system_column]}, *messages]
        return [b.messages(messages)], c.last_user_text(messages)
    text = c.as_text(row[column])
    parts = []
    if system_column and isinstance(row.get(system_column), str) and row[system_column].strip():
        parts.append(b.prompt(row[system_column], title="System prompt"))
    parts.append(b.prompt(text))
    return parts, text


class GenericProcessor(Processor):
    key = "generic"
    label = "table of prompts"
    kind = "rows"

    def claim(self, columns, sample) -> float:
        return 0.1

    def to_task(self, row, ref, withheld) -> RowTask:
        column = prompt_column(row)
        system = next((n for n in SYSTEM_NAMES if n in row), None)
        parts, text = prompt_blocks(row, column, system)
        title_col = next((n for n in TITLE_NAMES if isinstance(row.get(n), str) and row[n].strip()), None)
        ident = next((str(row[n]) for n in ID_NAMES if row.get(n) not in (None, "")), None)
        title = row[title_col] if title_col else c.title_from(text, ident or f"Row {ref.index}")
        facets = c.facets_from(row, FACET_NAMES)
        shown = {column, system, title_col}
        ids = [(name, c.as_text(row[name])) for name in ID_NAMES if row.get(name) not in (None, "")]
        details = b.kv(labelled(ids)) if ids else None
        sections = c.sections(
            c.section("task", "What the agent gets", parts),
            c.section("grading", "How it is graded", [c.grading_note(withheld, "No grader is named in the row.")]
                      if withheld else []),
            c.section("fields", "The row", [details, c.leftovers(row, shown)]),
        )
        return RowTask(title=title, brief=c.brief_from(text), facets=facets, sections=sections)
