"""A rows dataset's rollout files: listed at index time (each trace's title, reward and the task it ran on), then
read again one trace at a time for its page. Rollouts are never tasks: they are named on the dataset's page,
each trace has its own page, and a trace links to its task when the task is one of this dataset's."""

from __future__ import annotations

import hashlib

from rlx.adapters.contract import Section, TaskView
from rlx.adapters import blocks as b
from rlx.adapters.rollouts import FORMATS, read_file, trace_sections
from rlx.adapters.rollouts.trace_files import RolloutFileError
from rlx.adapters.rollouts.formats import TRIAL_TRAJECTORY
from rlx.adapters.rollouts.view import trace_title
from rlx.adapters.rows.local import local_file
from rlx.adapters.rows.processors import RowRef
from rlx.adapters.rows.readers import DataFileError
from rlx.sources.errors import SourceError

READ_ERRORS = (RolloutFileError, DataFileError, SourceError, OSError)


def text_key(text: str) -> str:
    return hashlib.sha1(" ".join(str(text).split()).encode()).hexdigest()[:16]


def index_rollouts(env, found: list[dict], task_texts: list[tuple[str, str]], splits) -> list[dict]:
    """[{path, format, label, why, traces: [{n, title, reward, model, task}], problem}] for the dataset's page.

    `task_texts`: (ref, the text its title comes from) of each indexed task, to link a trace by its prompt."""
    by_text = {text_key(text): ref for ref, text in task_texts if text.strip()}
    out = []
    for item in found:
        entry = {**item, "label": FORMATS.get(item["format"] or "", ""), "traces": [], "problem": None}
        out.append(entry)
        if not item["format"]:
            continue
        try:
            traces = read_file(_local(env, item), item["format"])
        except READ_ERRORS as exc:
            entry["problem"] = str(exc)
            continue
        for n, trace in enumerate(traces):
            if trace is None:
                entry["traces"].append({"n": n, "title": f"Record {n} (no turns)", "empty": True})
                continue
            reward = next((v for k, v in trace.result if k in ("reward", "score", "resolved", "success")), None)
            entry["traces"].append({"n": n, "title": trace_title(trace, f"Trace {n}"), "model": trace.model,
                                    "reward": reward if isinstance(reward, (int, float, bool, str)) else None,
                                    "task": _task_of(trace, by_text, item["path"], splits)})
    return out


def _local(env, item: dict):
    """The rollout file, local; for a Harbor trial its result.json too (its reward), when the trial has one."""
    if item["format"] == "harbor-trial" and item["path"].endswith(TRIAL_TRAJECTORY):
        try:
            local_file(env, item["path"][: -len(TRIAL_TRAJECTORY)] + "result.json")
        except READ_ERRORS:
            pass  # drawn without its reward
    return local_file(env, item["path"])


def _task_of(trace, by_text: dict, path: str, splits) -> str | None:
    """The ref of the task the trace ran on: its prompt's user turns matched with a task's, else its task index
    in the file its name is built on (NeMo Gym's `example_rollouts.jsonl` beside `example.jsonl`)."""
    for turn in trace.turns:
        if turn["role"] == "assistant":
            break
        if turn["role"] == "user" and text_key(turn["content"]) in by_text:
            return by_text[text_key(turn["content"])]
    if trace.task_index is None or trace.task_index < 0:
        return None
    stem = path.rsplit(".", 1)[0]
    for suffix in ("_rollouts", "-rollouts", "_rollout", "-rollout"):
        if stem.endswith(suffix):
            sibling = stem[: -len(suffix)]
            break
    else:
        return None
    several = len({s.config for s in splits}) > 1
    for split in splits:
        offset = 0
        for data in split.files:
            if data.path.rsplit(".", 1)[0] == sibling and trace.task_index < data.rows:
                return str(RowRef(split.split, offset + trace.task_index, split.config if several else None))
            offset += data.rows
    return None


def trace_view(env, index, n: int, i: int, task_row=lambda _ref: None) -> TaskView | None:
    """Trace `i` of rollout file `n`, as sections (the grader's side withheld), or None when there is none.
    `task_row(ref)` gives the raw row of the task it ran on: that task's answers are masked in the trace too, for
    a rollout file need not repeat them as fields for its agent's reply to hold them."""
    files = index.summary.get("rollouts") or []
    if not (0 <= n < len(files)) or not files[n].get("format"):
        return None
    entry = files[n]
    listed = next((t for t in entry["traces"] if t["n"] == i), None)
    if listed is None:
        return None
    try:
        traces = read_file(_local(env, entry), entry["format"])
    except READ_ERRORS as exc:
        return TaskView(ref=f"{n}/{i}", title=listed["title"],
                        sections=[Section("problem", "Could not read this trace", [b.note(str(exc), "bad")])])
    trace = traces[i] if i < len(traces) else None
    if trace is None:
        return TaskView(ref=f"{n}/{i}", title=listed["title"], sections=[
            Section("problem", "No turns", [b.note("This record of the file holds no turns to draw.", "info")])])
    sections, withheld = trace_sections(trace, task_row(listed["task"]) if listed.get("task") else None)
    facts = {k: v for k, v in (("model", trace.model), ("reward", listed.get("reward"))) if v is not None}
    return TaskView(ref=f"{n}/{i}", title=listed["title"], sections=sections, withheld=withheld, facts=facts)
