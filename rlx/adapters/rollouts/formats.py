"""Which rollout format a file holds, and one record of it as a trace.

Formats, each read after looking at a real public file of it:
- NeMo Gym rollouts (`*_rollouts.jsonl`; read: NVIDIA-NeMo/Gym resources_servers/example_multi_turn/data/
  example_rollouts.jsonl): `responses_create_params.input` (what the agent got), `response.output` (Responses API
  items: message, function_call, function_call_output, reasoning), `reward`, `_ng_task_index` (the task's line).
- Verifiers eval outputs (`outputs/evals/.../results.jsonl`): `prompt`, `completion` (chat lists or text),
  `reward`, `metrics`, `answer` (the reference: withheld), `info`, `example_id` (the task's row).
- SWE-agent `.traj` (a JSON object: `trajectory` steps of thought/action/observation, `history`, `info` with
  `exit_status` and `submission`) and mini-swe-agent `.traj.json` (`messages`, `info`).
- A file named as rollouts whose rows hold a trace (`messages`, `trajectory`, ...).
- Agent session files, one session a file (session_logs.py): Claude Code, Codex, Pi and the Session Trace Simple format.
- Inspect eval logs (`.eval`, a zip: `header.json` and `samples/<id>_epoch_<n>.json`, each sample's `messages` with
  `tool_calls` {id, function (the name), arguments}, `target` (the reference: withheld), `scores`), as
  inspect_ai's log format writes them; one trace a sample.
- Harbor trial folders (`<trial>/agent/trajectory.json` in ATIF beside `<trial>/result.json`): steps from
  system/user/agent with `tool_calls` {tool_call_id, function_name, arguments} and `observation.results`
  {source_call_id, content}; the reward from result.json's `verifier_result.rewards`, the task from `task_name`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlx.adapters.rollouts import session_logs
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.traces import RESULT_COLUMNS, TRACE_COLUMNS, turns

FORMATS = {
    "nemo-gym": "NeMo Gym rollouts", "verifiers": "Verifiers eval results", "swe-agent": "a SWE-agent trajectory",
    "mini-swe-agent": "a mini-swe-agent trajectory", "traces": "agent traces", "inspect": "an Inspect eval log",
    "harbor-trial": "a Harbor trial", **session_logs.FORMATS,
}
ONE_PER_FILE = {"swe-agent", "mini-swe-agent", "harbor-trial", *session_logs.FORMATS}  # the whole file is one trace
TRIAL_TRAJECTORY = "agent/trajectory.json"  # a Harbor trial's ATIF file, relative to the trial's folder
ID_FIELDS = ("example_id", "instance_id", "task_id", "id", "_ng_task_index")
MODEL_FIELDS = ("model", "model_name", "agent")


@dataclass
class Trace:
    """One run: its turns ({role, content, calls}), its result pairs, and what names its task."""

    turns: list[dict]
    result: list[tuple[str, Any]] = field(default_factory=list)
    model: str | None = None
    task_index: int | None = None  # the task's row in the file beside (NeMo Gym, Verifiers example_id)
    task_ids: list[str] = field(default_factory=list)
    record: dict = field(default_factory=dict)  # the rest of the record: never shown, walked for answers


def detect(path: str, first: Any) -> str | None:
    """The rollout format of the file at `path` whose first record is `first`, or None when it holds tasks."""
    lower = path.lower()
    if lower.endswith(".traj"):
        return "swe-agent"
    if lower.endswith(".traj.json"):
        return "mini-swe-agent"
    if lower.endswith(".eval"):
        return "inspect"
    if lower.endswith(TRIAL_TRAJECTORY) or (isinstance(first, dict) and str(first.get("schema_version", ""))
                                            .startswith("ATIF") and isinstance(first.get("steps"), list)):
        return "harbor-trial"
    if not isinstance(first, dict):
        return None
    session = session_logs.detect(first)
    if session:
        return session
    if "_ng_task_index" in first or ("responses_create_params" in first and isinstance(first.get("response"), dict)):
        return "nemo-gym"
    if "completion" in first and ("reward" in first or "metrics" in first):
        return "verifiers"
    return None


def named_trace_format(first: Any) -> str | None:
    """For a file named as rollouts: 'traces' when its rows hold a trace column."""
    if isinstance(first, dict) and any(turns(first.get(n)) for n in TRACE_COLUMNS if n in first):
        return "traces"
    return None


def to_trace(fmt: str, record: Any) -> Trace | None:
    """One record (a row, or a whole .traj object) as a trace; None when it holds no turns."""
    if not isinstance(record, dict):
        return None
    reader = {"nemo-gym": _nemo_gym, "verifiers": _verifiers, "swe-agent": _swe_agent,
              "mini-swe-agent": _mini_swe_agent, "traces": _traces, "inspect": _inspect_sample,
              "harbor-trial": _harbor_trial}.get(fmt)
    trace = reader(record) if reader else None
    if trace is None or not trace.turns:
        return None
    trace.result = trace.result or _result(record)
    trace.model = trace.model or next((c.as_text(record[n]) for n in MODEL_FIELDS
                                       if isinstance(record.get(n), str) and record[n]), None)
    trace.task_ids = trace.task_ids or [c.as_text(record[n]) for n in ID_FIELDS if record.get(n) not in (None, "")]
    trace.record = record
    return trace


def _nemo_gym(record: dict) -> Trace | None:
    params = c.nested(record.get("responses_create_params")) or {}
    given = params.get("input") if isinstance(params, dict) else None
    messages = [{"role": "user", "content": given}] if isinstance(given, str) else session_logs.responses_items(given)
    if isinstance(params, dict) and isinstance(params.get("instructions"), str):
        messages.insert(0, {"role": "system", "content": params["instructions"]})
    response = c.nested(record.get("response")) or {}
    messages += session_logs.responses_items(response.get("output") if isinstance(response, dict) else None)
    index = record.get("_ng_task_index")
    model = response.get("model") if isinstance(response, dict) else None
    return Trace(turns(messages) or [], model=model if isinstance(model, str) else None,
                 task_index=index if isinstance(index, int) else None)


def _verifiers(record: dict) -> Trace | None:
    def chat_of(value, role):
        value = c.nested(value)
        if isinstance(value, str):
            return [{"role": role, "content": value}]
        return list(value) if isinstance(value, list) else []

    messages = chat_of(record.get("prompt", record.get("question")), "user") + chat_of(record.get("completion"),
                                                                                     "assistant")
    index = record.get("example_id")
    return Trace(turns(messages) or [], task_index=index if isinstance(index, int) else None)


def _swe_agent(record: dict) -> Trace | None:
    history = c.nested(record.get("history"))
    given = []
    for message in history if isinstance(history, list) else []:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user"):
            break  # what the agent got: the system and user turns before its first step
        given.append({"role": message["role"], "content": c.content_text(message.get("content", ""))})
    steps = [s for s in c.nested(record.get("trajectory")) or [] if isinstance(s, dict)]
    trace = turns(given + steps) or []
    info = c.nested(record.get("info")) or {}
    result = [(k, info[k]) for k in ("exit_status", "submission") if isinstance(info, dict) and info.get(k)]
    stats = info.get("model_stats") if isinstance(info, dict) else None
    if isinstance(stats, dict) and stats.get("instance_cost") is not None:
        result.append(("cost", stats["instance_cost"]))
    return Trace(trace, result=result)


def _mini_swe_agent(record: dict) -> Trace | None:
    trace = _traces(record)
    info = c.nested(record.get("info")) or {}
    if trace is not None and isinstance(info, dict):
        trace.result = [(k, info[k]) for k in ("exit_status", "submission") if info.get(k)]
    return trace


def _inspect_sample(record: dict) -> Trace | None:
    messages = _attached(c.nested(record.get("messages")), record.get("attachments"))
    if not isinstance(messages, list) or not messages:
        given = c.nested(record.get("input"))  # a sample that never ran: its input alone
        messages = [{"role": "user", "content": given}] if isinstance(given, str) else given
    trace = Trace(turns(messages) or [])
    scores = c.nested(record.get("scores"))
    for name, score in (scores.items() if isinstance(scores, dict) else []):
        value = score.get("value") if isinstance(score, dict) else score
        if isinstance(value, (str, int, float, bool)):
            trace.result.append((f"score.{name}" if len(scores) > 1 else "score", value))
    if record.get("error"):
        trace.result.append(("error", c.as_text(record["error"])[:500]))
    if record.get("id") not in (None, ""):
        trace.task_ids = [c.as_text(record["id"])]
    return trace


def _attached(value: Any, attachments: Any, depth: int = 0) -> Any:
    """Inspect moves long texts of a sample into `attachments` and writes "attachment://<hash>" in their place."""
    if not isinstance(attachments, dict) or depth > 8:
        return value
    if isinstance(value, str) and value.startswith("attachment://"):
        found = attachments.get(value[len("attachment://"):])
        return found if isinstance(found, str) else value
    if isinstance(value, list):
        return [_attached(v, attachments, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _attached(v, attachments, depth + 1) for k, v in value.items()}
    return value


def _harbor_trial(record: dict) -> Trace | None:
    """`record`: {"trajectory": the ATIF object, "result": result.json's object or None}."""
    atif = c.nested(record.get("trajectory")) or {}
    messages = []
    for step in atif.get("steps") or [] if isinstance(atif, dict) else []:
        if not isinstance(step, dict):
            continue
        role = {"agent": "assistant"}.get(step.get("source"), step.get("source") or "assistant")
        calls = [{"id": call.get("tool_call_id"), "function": {"name": call.get("function_name"),
                                                                "arguments": call.get("arguments", "")}}
                 for call in step.get("tool_calls") or [] if isinstance(call, dict)]
        messages.append({"role": role, "content": c.content_text(step.get("message") or ""),
                         **({"tool_calls": calls} if calls else {})})
        observation = step.get("observation") if isinstance(step.get("observation"), dict) else {}
        for result in observation.get("results") or []:
            if isinstance(result, dict):
                messages.append({"role": "tool", "tool_call_id": result.get("source_call_id"),
                                 "content": c.content_text(result.get("content") or "")})
    agent = atif.get("agent") if isinstance(atif, dict) and isinstance(atif.get("agent"), dict) else {}
    trace = Trace(turns(messages) or [], model=agent.get("model_name") if isinstance(agent.get("model_name"), str)
                  else None)
    outcome = c.nested(record.get("result"))
    if isinstance(outcome, dict):
        verifier = outcome.get("verifier_result") if isinstance(outcome.get("verifier_result"), dict) else {}
        rewards = verifier.get("rewards") if isinstance(verifier.get("rewards"), dict) else {}
        trace.result = [(k if len(rewards) > 1 else "reward", v) for k, v in rewards.items()
                        if isinstance(v, (int, float))]
        failure = outcome.get("exception_info")
        if isinstance(failure, dict) and failure.get("exception_type"):
            trace.result.append(("error", f"{failure['exception_type']}: {c.as_text(failure.get('exception_message'))[:300]}"))
        if isinstance(outcome.get("task_name"), str):
            trace.task_ids = [outcome["task_name"]]
    return trace


def _traces(record: dict) -> Trace | None:
    column = next((n for n in TRACE_COLUMNS if turns(record.get(n))), None)
    return Trace(turns(record.get(column)) or []) if column else None


def _result(record: dict) -> list[tuple[str, Any]]:
    pairs = []
    for name in RESULT_COLUMNS:
        value = c.nested(record.get(name))
        if value not in (None, "", [], {}):
            pairs.append((name, value if isinstance(value, (str, int, float, bool)) else c.as_text(value)))
    metrics = c.nested(record.get("metrics"))
    if isinstance(metrics, dict):
        pairs += [(f"metrics.{k}", v) for k, v in list(metrics.items())[:12] if isinstance(v, (int, float))]
    return pairs
