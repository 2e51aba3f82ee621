"""Agent traces: a row is one episode, its turns in `messages` / `conversations` / `trajectory` (OpenAI chat with
`tool_calls`, ShareGPT `from`/`value`, or SWE-agent-style steps of thought/action/observation), plus its result.

The processor only claims such a dataset: its rows are recorded runs, so the build lists its files as rollouts
(rollouts/ draws each trace). `turns` reads one trace, each tool call paired with the output it got back (by
`tool_call_id`, else the next tool turn in order); `turn_steps` draws them.
"""

from __future__ import annotations

import json
from typing import Any

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

TRACE_COLUMNS = ("messages", "conversations", "conversation", "trajectory", "traj", "turns", "history", "trace",
                 "steps", "dialog")
RESULT_COLUMNS = ("reward", "rewards", "score", "success", "resolved", "passed", "is_success", "exit_status",
                  "outcome", "result", "status", "num_turns", "cost")
FACET_COLUMNS = ("model", "agent", "source", "task_source", "environment", "env", "category", "difficulty", "split",
                 "success", "resolved", "exit_status", "outcome", "status")
NAME_COLUMNS = ("task_id", "instance_id", "episode_id", "trace_id", "id", "name")
ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "model": "assistant",
         "bot": "assistant", "system": "system", "tool": "tool", "function": "tool", "observation": "tool",
         "function_response": "tool", "ipython": "tool", "environment": "tool", "function_call": "assistant"}
MAX_TURNS = 300  # turns drawn on one page; a longer trace says how many were left out
MAX_TURN_CHARS = 20_000


class TraceProcessor(Processor):
    key = "traces"
    label = "Agent traces"
    kind = "rows"
    # The episode is the trace itself; what started it and its outcome are labels. Anything else is withheld.
    agent_fields = TRACE_COLUMNS + ("instruction", "prompt", "system_prompt", "tools")
    label_fields = NAME_COLUMNS + RESULT_COLUMNS + FACET_COLUMNS

    def claim(self, columns, sample) -> float:
        column = next((n for n in TRACE_COLUMNS if n in columns), None)
        if column is None:
            return 0.0
        traces = [turns(row.get(column)) for row in sample[:5]]
        traces = [t for t in traces if t]
        if not traces:
            return 0.0
        with_tools = any(t.get("calls") or t["role"] == "tool" for trace in traces for t in trace)
        has_agent = any(t["role"] == "assistant" for trace in traces for t in trace)
        if with_tools:
            return 0.9
        return 0.55 if has_agent else 0.0

    def to_task(self, row, ref, withheld) -> RowTask:
        # Never reached: a dataset this processor claims is listed as rollouts (rows/build.py), not as tasks.
        raise RowProblem("Agent traces are recorded runs; they open as traces, not as tasks.")


def turns(value: Any) -> list[dict] | None:
    """The trace as [{role, content, calls: [{id, name, arguments, output}]}], tool outputs paired with their
    calls; None when `value` holds no turns."""
    value = c.nested(value)
    if not isinstance(value, (list, tuple)) or not value:
        return None
    out = []
    for item in list(value)[:5000]:
        turn = _turn(c.nested(item))
        if turn is None:
            return None
        out.append(turn)
    _pair_outputs(out)
    return out


def _turn(item: Any) -> dict | None:
    if not isinstance(item, dict):
        return None
    if "role" in item or "from" in item:
        raw_role = str(item.get("role") or item.get("from") or "").lower()
        role = ROLES.get(raw_role, raw_role or "unknown")
        content = c.content_text(item.get("content", item.get("value", "")))
        calls = [_call(call) for call in (c.nested(item.get("tool_calls")) or [])
                 if isinstance(c.nested(call), dict)]
        if raw_role == "function_call" and not calls:  # ShareGPT writes the call as JSON text in `value`
            calls = [_call(c.nested(content))] if isinstance(c.nested(content), dict) else []
            content = "" if calls else content
        if isinstance(item.get("function_call"), dict):
            calls.append(_call(item["function_call"]))
        return {"role": role, "content": content, "calls": calls,
                "answers": str(item.get("tool_call_id") or "") or None, "name": item.get("name")}
    if {"action", "observation"} & set(item) or "thought" in item:  # a step: thought, action, observation
        content = "\n\n".join(c.as_text(item[k]) for k in ("thought", "response") if item.get(k))
        call = {"id": None, "name": "action", "arguments": c.as_text(item.get("action", "")),
                "output": c.as_text(item.get("observation")) if "observation" in item else None}
        return {"role": "assistant", "content": content, "calls": [call], "answers": None, "name": None}
    return None


def _call(call: dict) -> dict:
    call = c.nested(call)
    function = c.nested(call.get("function")) if isinstance(call.get("function"), (dict, str)) else None
    source = function if isinstance(function, dict) else call
    arguments = c.nested(source.get("arguments", source.get("args", source.get("input", ""))))
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, indent=2,
                                                                    default=str)
    name = source.get("name") or (function if isinstance(function, str) else None)  # Inspect: function is the name
    return {"id": str(call.get("id") or "") or None, "name": str(name or "tool"), "arguments": text, "output": None}


def _pair_outputs(trace: list[dict]) -> None:
    """Each tool turn's content becomes the output of the call it answers: by id, else the oldest unanswered."""
    by_id = {call["id"]: call for t in trace for call in t["calls"] if call["id"]}
    waiting = []
    for turn in trace:
        if turn["role"] == "assistant":
            waiting = [call for call in turn["calls"] if call["output"] is None]
        elif turn["role"] == "tool":
            target = by_id.get(turn["answers"]) if turn["answers"] else None
            if target is None and waiting:
                target = waiting[0]
            if target is not None and target["output"] is None:
                target["output"] = turn["content"]
                turn["paired"] = True
                if target in waiting:
                    waiting.remove(target)


def turn_steps(trace: list[dict], first_user: dict | None):
    parts, n = [], 0
    for turn in trace[:MAX_TURNS]:
        if turn["role"] == "system" or turn is first_user or turn.get("paired"):
            continue  # shown above, or beside the call it answers
        n += 1  # the turns as the page numbers them: 1, 2, 3, whatever was shown above
        inner = [b.prompt(_cut(turn["content"]))] if turn["content"].strip() else []
        for call in turn["calls"]:
            inner.append(b.code(_cut(call["arguments"]), "json", title=f"calls {call['name']}"))
            inner.append(b.code(_cut(call["output"]), "text", title=f"{call['name']} returned")
                         if call["output"] is not None else
                         b.note(f"No output of {call['name']} is recorded.", "info"))
        if not inner:
            inner = [b.note("(empty turn)", "info")]
        tools = ", ".join(call["name"] for call in turn["calls"])
        parts.append({"title": f"Turn {n} · {turn['role']}" + (f" · {tools}" if tools else ""), "blocks": inner})
    if len(trace) > MAX_TURNS:
        parts.append({"title": "More turns", "blocks": [
            b.note(f"{len(trace) - MAX_TURNS:,} later turns are not drawn on this page.", "info")]})
    return b.steps(parts, title="Each turn, tool calls beside what they returned")


def _cut(text: str) -> str:
    if len(text) <= MAX_TURN_CHARS:
        return text
    return text[:MAX_TURN_CHARS] + f"\n\n… ({len(text) - MAX_TURN_CHARS:,} more characters not shown)"
