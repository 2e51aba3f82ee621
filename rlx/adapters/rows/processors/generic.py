"""Any table of prompts: column roles inferred from names and values (the processor of last resort).

What it shows of a row: the prompt (and a system prompt beside it), ids, and short labels: a column named as a
label (difficulty, category, source...) holding short values, or one whose values across the dataset's first rows
are short and few. Everything else, long free text beside the prompt above all, is withheld: in a table nobody
described, a column we cannot place may be what the grader compares with.
"""

from __future__ import annotations

import json

from rlx.adapters import blocks as b
from rlx.adapters.key_labels import labelled
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowTask
from rlx.adapters.rows.processors.fields import Shown

PROMPT_NAMES = ("prompt", "question", "problem", "instruction", "instructions", "query", "input", "task",
                "messages", "conversation", "conversations", "text", "content", "description", "problem_statement")
TITLE_NAMES = ("title", "name", "task_name", "summary")
ID_NAMES = ("id", "task_id", "instance_id", "uid", "uuid", "example_id", "problem_id", "idx")
SYSTEM_NAMES = ("system", "system_prompt", "system_message")
FACET_NAMES = ("difficulty", "level", "category", "categories", "topic", "subject", "domain", "type", "task_type",
               "language", "lang", "source", "tags", "task", "ability", "data_source", "env_class", "split",
               "agent_name", "environment", "dataset", "license")
LABEL_SURVEY_MIN = 8  # with fewer rows, "few distinct values" cannot be told: only label names count
LABEL_CHARS = 60
UNPLACED_WHY = "a column that is neither the prompt, an id nor a short label, so it may be the grader's"


def label_columns(columns, rows) -> list[str]:
    """Columns whose values, over these rows, are short and few (at most a quarter as many distinct as rows)."""
    out = []
    for column in columns:
        values = [row.get(column) for row in rows if isinstance(row, dict) and row.get(column) not in (None, "")]
        if len(values) < LABEL_SURVEY_MIN or not all(_short(v) for v in values):
            continue
        distinct = {json.dumps(v, sort_keys=True, default=str) for v in values}
        if len(distinct) <= max(2, len(values) // 4):
            out.append(column)
    return out


def _short(value) -> bool:
    if isinstance(value, (bool, int, float)) or hasattr(value, "isoformat") or type(value).__name__ == "Decimal":
        return True
    return isinstance(value, str) and len(value) <= LABEL_CHARS and "\n" not in value


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

    def survey(self, columns, rows) -> dict:
        return {"labels": label_columns(columns, rows)}

    def shown(self, row, hints=None) -> Shown:
        column = prompt_column(row)
        system = next((n for n in SYSTEM_NAMES if n in row), None)
        surveyed = set((hints or {}).get("labels") or ())
        labels = [n for n in row if n in ID_NAMES or n in surveyed
                  or (n in FACET_NAMES and c.facet_value(c.nested(row[n])) is not None)]
        return Shown(tuple(n for n in (column, system) if n), tuple(labels), default_why=UNPLACED_WHY)

    def to_task(self, row, ref, withheld) -> RowTask:
        column = prompt_column(row)
        system = next((n for n in SYSTEM_NAMES if n in row), None)
        parts, text = prompt_blocks(row, column, system)
        title_col = next((n for n in TITLE_NAMES if isinstance(row.get(n), str) and row[n].strip()), None)
        # a title column is shown only when it reads as a label (the survey said so), like any other column
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
