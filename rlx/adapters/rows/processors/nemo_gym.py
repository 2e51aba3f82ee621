"""NVIDIA NeMo Gym rows: a Responses API request (`responses_create_params`), the agent it routes to
(`agent_ref`), and the data its resources server's verify() reads (`verifier_metadata` / `task_data`)."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.key_labels import labelled
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

# Fields of NeMo Gym task data whose names do not say "answer" but hold it (from its TaskData schemas).
OWN_ANSWER_KEYS = (
    "expected_action", "ref_message", "ref_patch", "exp_cal_state", "unit_tests", "tests", "actions",
    "communicate_info", "patterns", "response_policy_mapped", "expanded_completion", "simplifications",
    "simplified_values", "preference_ranking", "score1", "score2", "chosen", "rejected", "pass_criteria",
    "customer_scenario",
)
VERIFIER_FIELDS = ("verifier_metadata", "task_data", "evaluation_criteria", "template_metadata", "user_scenario")


def conversation(params: dict) -> list[dict]:
    """The Responses API `input` (a string, messages, or typed items) and `instructions` as one chat."""
    out = []
    if isinstance(params.get("instructions"), str) and params["instructions"].strip():
        out.append({"role": "system", "content": params["instructions"]})
    items = params.get("input")
    if isinstance(items, str):
        return out + [{"role": "user", "content": items}]
    for item in items or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            out.append({"role": "assistant (tool call)",
                        "content": f"{item.get('name', '?')}({c.as_text(item.get('arguments', ''))})"})
        elif kind == "function_call_output":
            out.append({"role": "tool", "content": c.as_text(item.get("output", ""))})
        elif kind == "reasoning":
            summary = item.get("summary") or []
            out.append({"role": "assistant (reasoning)", "content": c.content_text(summary)})
        else:
            out.append({"role": str(item.get("role", "user")), "content": c.content_text(item.get("content", ""))})
    return out


def tool_signatures(params: dict) -> list[list]:
    """[name, "description; parameters: a, b"] for each tool the request offers."""
    rows = []
    for tool in params.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        props = (spec.get("parameters") or {}).get("properties") or {}
        names = ", ".join(map(str, props)) if isinstance(props, dict) else ""
        text = str(spec.get("description") or "").strip()
        rows.append([str(spec.get("name") or tool.get("type") or "tool"),
                     text + (f" (parameters: {names})" if names else "")])
    return rows


class NemoGymProcessor(Processor):
    """The agent gets `responses_create_params` (its input, instructions and tools); `agent_ref` routes the row.
    Every other field is the resources server's: its verify() reads them (expected actions, reference answers,
    the `minefield_label` of example_multi_step...), so they are withheld whole."""

    key = "nemo-gym"
    label = "NeMo Gym"
    kind = "nemo-gym"
    agent_fields = ("responses_create_params",)
    label_fields = ("agent_ref", "id", "task_source", "category", "difficulty", "domain", "source", "split")
    withheld_reasons = {name: "read by the resources server's verify(), never sent to the agent"
                        for name in VERIFIER_FIELDS}
    answer_keys = OWN_ANSWER_KEYS

    def claim(self, columns, sample) -> float:
        cols = set(columns)
        if "responses_create_params" in cols:
            return 0.95
        return 0.0

    def to_task(self, row, ref, withheld) -> RowTask:
        params = c.nested(row.get("responses_create_params"))
        if not isinstance(params, dict):
            raise RowProblem(f"Row {ref} has no readable responses_create_params (the request its agent sends).")
        chat = conversation(params)
        if not chat:
            raise RowProblem(f"Row {ref}: responses_create_params has no input messages.")
        agent = c.nested(row.get("agent_ref"))
        agent_name = agent.get("name") if isinstance(agent, dict) else None
        tools = tool_signatures(params)
        settings = [(k, c.as_text(v)) for k, v in params.items() if k not in ("input", "tools", "instructions")]
        verifier = []  # verifier_metadata and the rest are withheld: the grading note names them
        how = (f"The resources server behind agent {agent_name!r} verifies the reply." if agent_name
               else "The dataset's resources server verifies the reply.")
        text = c.last_user_text(chat)
        facets = c.facets_from(row, ("task_source", "category", "difficulty", "domain"))
        if agent_name:
            facets["agent"] = str(agent_name)[:60]
        facets["tools"] = "with tools" if tools else "no tools"
        sections = c.sections(
            c.section("task", "What the agent gets", [
                b.messages(chat),
                b.kv(tools, title=f"{len(tools)} tool{'s' if len(tools) != 1 else ''} offered") if tools else None,
                b.kv(labelled(settings), title="Request settings") if settings else None,
            ]),
            c.section("grading", "How it is graded", [
                c.grading_note(withheld, how),
                b.kv([("Agent server", agent_name), ("Agent type", agent.get("type") if isinstance(agent, dict)
                                                      else None)]) if agent_name else None,
                *verifier,
            ]),
            c.section("fields", "The row", [c.leftovers(row, {"responses_create_params", "agent_ref",
                                                              *VERIFIER_FIELDS})]),
        )
        title = c.title_from(row["question"], "") if isinstance(row.get("question"), str) else ""
        return RowTask(title=title or c.title_from(text, f"Row {ref.index}"), brief=c.brief_from(text),
                       facets=facets, sections=sections, facts={"agent": agent_name} if agent_name else {})
