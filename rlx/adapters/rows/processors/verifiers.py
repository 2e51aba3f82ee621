"""Verifiers (Prime Intellect) rows: `prompt` (a chat) or `question`, a withheld `answer`, `info`, `task`."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask
from rlx.adapters.rows.processors.generic import prompt_blocks

# Prime's older synthetic sets keep tests and solutions under names the shared rule does not catch.
OWN_ANSWER_KEYS = ("verification_info", "gold_standard_solution", "test_cases", "hidden_tests")


class VerifiersProcessor(Processor):
    """The model gets `prompt` (or `question` formatted with the environment's system prompt); `answer` and `info`
    go to the rubric's reward functions, so both are withheld (`info` is also read by some environments' setup)."""

    key = "verifiers"
    label = "Verifiers"
    kind = "verifiers"
    agent_fields = ("prompt", "question", "system_prompt")
    label_fields = ("task", "task_type", "example_id", "id", "source", "difficulty", "category")
    withheld_reasons = {
        "answer": "what the rubric's reward functions compare the reply with",
        "info": "passed to the rubric's reward functions with the reply, not to the model",
    }
    answer_keys = OWN_ANSWER_KEYS

    def claim(self, columns, sample) -> float:
        """A chat `prompt`, or Verifiers' own columns (info, task, example_id); a bare question/answer table is
        any table, so it claims less than the generic processor unless the dataset is tagged verifiers."""
        cols = set(columns)
        if not cols & {"prompt", "question"} or cols & {"data_source", "responses_create_params", "reward_model"}:
            return 0.0
        chat_prompt = any(c.is_chat(row.get("prompt")) for row in sample[:5])
        own = cols & {"info", "task", "example_id", "verification_info"}
        if not chat_prompt and not own:
            return 0.08
        score = 0.35 + (0.25 if "answer" in cols else 0) + (0.15 if own else 0) + (0.1 if chat_prompt else 0)
        return min(score, 0.85)

    def to_task(self, row, ref, withheld) -> RowTask:
        column = "prompt" if "prompt" in row else "question" if "question" in row else None
        if column is None or row.get(column) in (None, "", []):
            raise RowProblem(f"Row {ref} has neither a prompt nor a question.")
        parts, text = prompt_blocks(row, column, "system_prompt")
        info = c.nested(row.get("info"))  # withheld (the reward functions' side): only there in an override
        info_block = None
        task_name = c.facet_value(row.get("task"))
        facets = c.facets_from(row, ("task", "task_type"))
        if isinstance(info, dict):
            facets.update(c.facets_from(info, ("difficulty", "topic", "category", "subject", "source")))
        how = "Reward functions of the environment's rubric score the reply"
        how += f" (task {task_name!r})." if isinstance(task_name, str) else "."
        sections = c.sections(
            c.section("task", "What the agent gets", parts),
            c.section("grading", "How it is graded", [c.grading_note(withheld, how), info_block]),
            c.section("fields", "The row", [c.leftovers(row, {column, "info", "system_prompt"})]),
        )
        facts = {"task": task_name} if isinstance(task_name, str) else {}
        return RowTask(title=c.title_from(text, f"Row {ref.index}"), brief=c.brief_from(text), facets=facets,
                       sections=sections, facts=facts)
