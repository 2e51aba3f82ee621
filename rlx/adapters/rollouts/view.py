"""One trace as contract blocks: what the agent got, each turn with its tool calls beside their output, and the
result. The record's other fields are never drawn; answers among them (a Verifiers `answer`, a NeMo Gym task's
`expected_answer`) are found by the one walk and their values masked wherever the trace repeats them."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section
from rlx.adapters.key_labels import labelled
from rlx.adapters.rollouts.formats import Trace
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.answers import answer_walk
from rlx.adapters.rows.processors.traces import RESULT_COLUMNS, TRACE_COLUMNS, turn_steps
from rlx.adapters.withhold import Withheld
from rlx.adapters.withhold.values import drop_public, mask_values

SHOWN = {*TRACE_COLUMNS, "prompt", "completion", "question", "responses_create_params", "response", "history",
         "lines", "info", "model", "agent", "reward", "metrics", "example_id", "instance_id", "task_id", "id",
         "_ng_task_index", "_ng_rollout_index", "agent_ref", "task", "input", "scores", "epoch", *RESULT_COLUMNS}
NOT_DRAWN_WHY = "a field of the rollout record this page does not draw (the grader's side may be among them)"


def first_user(trace: Trace) -> dict | None:
    return next((t for t in trace.turns if t["role"] == "user"), None)


def trace_title(trace: Trace, fallback: str) -> str:
    user = first_user(trace)
    return c.title_from(user["content"] if user else "", fallback)


def trace_sections(trace: Trace, task_row=None) -> tuple[list[Section], list[Withheld]]:
    """`task_row`: the raw row of the task the trace ran on, whose answers are masked in the trace as well."""
    withheld = _masked(trace, task_row)
    system = [t for t in trace.turns if t["role"] == "system"]
    user = first_user(trace)
    given = [b.disclose("The system prompt", [b.prompt(t["content"]) for t in system])] if system else []
    given.append(b.prompt(user["content"]) if user else
                 b.note("The trace has no user turn: the agent started from the system prompt.", "info"))
    calls = sum(len(t.get("calls", [])) for t in trace.turns)
    summary = b.kv([("Turns", len(trace.turns)), ("Tool calls", calls), ("Model", trace.model)])
    result = b.kv(labelled(trace.result)) if trace.result else b.note("The record holds no reward or outcome.")
    return c.sections(
        c.section("task", "What the agent got", given),
        c.section("trace", f"The trace ({len(trace.turns)} turns)", [summary, turn_steps(trace.turns, user)]),
        c.section("result", "The result", [result]),
    ), withheld


def _masked(trace: Trace, task_row=None) -> list[Withheld]:
    """Answers in the record (and in its task's row): named, and their values masked in the turns and the result
    (in place)."""
    walk = answer_walk()
    walk.clean(trace.record, "")
    withheld = list(walk.report())
    if task_row is not None:
        walk.clean(task_row, "")  # only its values count: the task's own page names its fields
    withheld += [Withheld(str(k), NOT_DRAWN_WHY) for k in list(trace.record)[:40]
                 if str(k) not in SHOWN and not any(w.where == str(k) for w in withheld)]
    user = first_user(trace)
    values = drop_public(walk.values, user["content"] if user else "")
    if not values:
        return withheld
    masked_any = False

    def mask(text):
        nonlocal masked_any
        out, found = mask_values(text, values)
        masked_any = masked_any or bool(found)
        return out

    for turn in trace.turns:
        if turn is not user:
            turn["content"] = mask(turn["content"])
        for call in turn.get("calls", []):
            call["arguments"] = mask(call["arguments"])
            if call.get("output") is not None:
                call["output"] = mask(call["output"])
    trace.result = [(k, mask(v) if isinstance(v, str) else v) for k, v in trace.result]
    if masked_any:
        withheld.append(Withheld("the trace", "a withheld value of the record, masked where the trace repeats it"))
    return withheld
