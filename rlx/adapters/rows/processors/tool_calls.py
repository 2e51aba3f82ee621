"""Function-calling and tool-state datasets: a request, the tools the agent may call, and what the grader expects
(BFCL's `question` + `function` with its ground truth and multi-turn `initial_config`; xLAM-style `query`,
`tools`, `answers`; tau-bench-style `instruction` with the expected `actions` and `outputs`; any row whose
expected end state sits in a field such as `extra_info` or `final_config`).

The agent gets the request (as its turns) and the tools. The calls the grader expects, the state it compares
the end state with, and the environment's starting state (the agent reaches it only through its tools) are
withheld, as is every other field but plain labels.
"""

from __future__ import annotations

from typing import Any

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask
from rlx.adapters.rows.processors.fields import Shown
from rlx.adapters.rows.processors.nemo_gym import tool_signatures

REQUEST_COLUMNS = ("messages", "question", "query", "prompt", "instruction", "user_query", "conversation")
TOOL_COLUMNS = ("tools", "functions", "function", "available_tools", "tool_list")
SYSTEM_COLUMNS = ("system", "system_prompt")
LABELS = ("id", "task_id", "user_id", "category", "difficulty", "source", "split", "involved_classes", "domain")
EXPECTED = "the calls the grader expects"
REASONS = {
    "ground_truth": EXPECTED, "answers": EXPECTED, "answer": EXPECTED, "actions": EXPECTED,
    "expected_calls": EXPECTED, "expected_tool_calls": EXPECTED, "possible_answer": EXPECTED,
    "path": "the order of calls the reference solution makes",
    "outputs": "what the grader expects the agent's replies to contain",
    "initial_config": "the tools' starting state, which the agent sees only through its tools",
    "final_config": "the end state the grader compares with", "final_state": "the end state the grader compares with",
    "expected_state": "the end state the grader compares with", "end_state": "the end state the grader compares with",
    "extra_info": "passed to the grader (in tool-state sets it holds the expected end state), not to the agent",
}
USER_SIM_NOTE = ("In tau-bench-style rows the `instruction` is given to the simulated user, who talks to the agent; "
                 "the agent reads only what that user says.")


def _request_column(columns) -> str | None:
    return next((n for n in REQUEST_COLUMNS if n in columns), None)


def _tool_column(columns) -> str | None:
    return next((n for n in TOOL_COLUMNS if n in columns), None)


class ToolCallsProcessor(Processor):
    key = "tool-calls"
    label = "function calling / tool state"
    kind = "rows"
    answer_keys = ("ground_truth", "expected_calls", "expected_tool_calls", "possible_answer", "final_config",
                   "final_state", "expected_state", "end_state")

    def claim(self, columns, sample) -> float:
        cols = set(columns)
        if "responses_create_params" in cols or "data_source" in cols:
            return 0.0  # NeMo Gym and verl rows say what they are
        if {"instruction", "actions"} <= cols:
            return 0.75
        if _request_column(cols) and _tool_column(cols):
            return 0.8 if cols & set(REASONS) else 0.6
        return 0.0

    def shown(self, row, hints=None) -> Shown:
        agent = [n for n in (_request_column(row), _tool_column(row)) if n]
        agent += [n for n in SYSTEM_COLUMNS if n in row]
        return Shown(tuple(agent), LABELS, dict(REASONS))

    def to_task(self, row, ref, withheld) -> RowTask:
        column = _request_column(row)
        if column is None:
            raise RowProblem(f"Row {ref} has no request (looked for {', '.join(REQUEST_COLUMNS[:4])}).")
        chat = _turns(row[column])
        system = next((row[n] for n in SYSTEM_COLUMNS if isinstance(row.get(n), str) and row[n].strip()), None)
        if system:
            chat = [{"role": "system", "content": system}, *chat]
        tool_col = _tool_column(row)
        tools = tool_signatures({"tools": _tool_list(row.get(tool_col))}) if tool_col else []
        given = [b.messages(chat)]
        if tools:
            given.append(b.kv(tools, title=f"{len(tools)} tool{'s' if len(tools) != 1 else ''} offered"))
        if column == "instruction" and "actions" in (w.where.split(".")[0] for w in withheld):
            given.insert(0, b.note(USER_SIM_NOTE, "info"))
        how = "The grader compares the calls the agent makes, or the state they leave, with what it expects."
        text = c.last_user_text(chat)
        facets = c.facets_from(row, ("category", "difficulty", "domain"))
        facets["tools"] = "with tools" if tools else "no tools"
        sections = c.sections(
            c.section("task", "What the agent gets", given),
            c.section("grading", "How it is graded", [c.grading_note(withheld, how)]),
            c.section("fields", "The row", [c.leftovers(row, {column, tool_col, *SYSTEM_COLUMNS})]),
        )
        ident = next((c.as_text(row[n]) for n in ("id", "task_id") if row.get(n) not in (None, "")), None)
        return RowTask(title=c.title_from(text, ident or f"Row {ref.index}"), brief=c.brief_from(text),
                       facets=facets, sections=sections)


def _turns(value: Any) -> list[dict]:
    """A request as turns: text, a chat, or BFCL's list of user turns (each a list of messages)."""
    value = c.nested(value)
    if isinstance(value, list) and value and all(isinstance(turn, list) for turn in value):
        return [m for turn in value for m in (c.chat(turn) or [])]
    messages = c.chat(value)
    if messages is not None:
        return messages
    return [{"role": "user", "content": c.as_text(value)}]


def _tool_list(value: Any) -> list:
    value = c.nested(value)
    if isinstance(value, dict):
        value = [value]
    return [c.nested(tool) for tool in value] if isinstance(value, list) else []
