"""Inspect (UK AISI) samples: `input` (a string or chat messages), `target` (what the scorer compares with), and
optionally `id`, `choices` (a multiple-choice question's options, shown to the model), `files` and `setup`
(copied into and run in the sandbox before the agent starts), `metadata` and `sandbox`.

`target` is withheld. `metadata` is withheld too: scorers read it, and a solver may also write parts of it into
the prompt through a template, so the page says that what the agent reads may hold more than this page shows.
"""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

NOTE = ("Inspect samples keep `metadata` for their scorers, and a solver's prompt template may write parts of it "
        "into what the model reads. It is withheld here, so the model's prompt may hold more than this page shows.")


class InspectProcessor(Processor):
    key = "inspect"
    label = "Inspect samples"
    kind = "rows"
    agent_fields = ("input", "choices", "files", "setup")
    label_fields = ("id", "sandbox", "category", "difficulty", "subject", "source", "split")
    withheld_reasons = {
        "target": "what the scorer compares the model's output with",
        "metadata": "read by the scorer; a solver template may also use it (see the note above)",
    }
    agent_note = NOTE

    def claim(self, columns, sample) -> float:
        cols = set(columns)
        if not {"input", "target"} <= cols:
            return 0.0
        readable = any(isinstance(row.get("input"), str) or c.is_chat(row.get("input")) for row in sample[:5])
        return 0.9 if readable else 0.3

    def to_task(self, row, ref, withheld) -> RowTask:
        messages = c.chat(row.get("input"))
        if messages is None:
            text = c.as_text(row.get("input"))
            if not text.strip():
                raise RowProblem(f"Row {ref} has no input (what the model is given).")
            given, text_for_title = [b.prompt(text)], text
        else:
            given, text_for_title = [b.messages(messages)], c.last_user_text(messages)
        choices = c.nested(row.get("choices"))
        if isinstance(choices, list) and choices:
            letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            given.append(b.kv([(letters[i] if i < 26 else str(i + 1), c.as_text(x)) for i, x in enumerate(choices)],
                              title="Choices"))
        files = c.nested(row.get("files"))
        if isinstance(files, dict) and files:
            given.append(b.kv([(str(k), f"{len(c.as_text(v)):,} characters") for k, v in files.items()],
                              title="Files copied into the sandbox"))
        if c.as_text(row.get("setup")).strip():
            given.append(b.code(c.as_text(row["setup"]), "bash", title="Setup run in the sandbox"))
        how = "Inspect's scorer compares the model's output with the sample's target."
        sections = c.sections(
            c.section("task", "What the agent gets", given),
            c.section("grading", "How it is graded", [c.grading_note(withheld, how)]),
        )
        ident = c.as_text(row.get("id"))
        return RowTask(title=c.title_from(text_for_title, ident or f"Sample {ref.index}"),
                       brief=c.brief_from(text_for_title), facets=c.facets_from(row, ("category", "subject")),
                       sections=sections, facts={"sample": ident} if ident else {})
