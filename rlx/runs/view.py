"""What the run page shows, read from the record, its events and Harbor's trial folder.

The oracle agent runs the task's reference solution, so its commands and output are the answer: they are never
shown. Everything else (the agent's steps, the verifier's output, rewards, timings, provenance) is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rlx.adapters.indexes import load_pack
from rlx.adapters.withhold import MASK
from rlx.adapters.withhold.values import mask_values, mask_values_in
from rlx.runs import record
from rlx.runs.outcome import of_run
from rlx.runs.record import RunRecord
from rlx.runs.sandboxes import HF, LOCAL

VERIFIER_TAIL = 16 * 1024
STATUS_LABELS = {"queued": "Queued", "running": "Running", "finished": "Finished", "failed": "Failed",
                 "stopped": "Stopped"}
TIMING_LABELS = {"environment_setup": "Sandbox setup", "agent_setup": "Agent setup",
                 "agent_execution": "Agent", "verifier": "Verifier", "total": "Whole run"}


def task_answer_values(store, run: RunRecord) -> list[str]:
    """The values withheld from the run's task (masked in its grader and files when its pack was built), so the
    run's own record masks them too wherever the agent's steps or the verifier repeat them."""
    pack = load_pack(store, run.env_id) or {}
    entry = (pack.get("tasks") or {}).get(run.ref) if isinstance(pack.get("tasks"), dict) else None
    values = entry.get("_answer_values") if isinstance(entry, dict) else None
    return [v for v in values or [] if isinstance(v, str)][:2000]


def masked_event(event: dict, values: list[str]) -> dict:
    """One event of the run with the task's withheld values masked (the one mask)."""
    return mask_values_in(event, values)[0] if values else event


def verifier_output(store, run: RunRecord, values: list[str] | None = None) -> tuple[str | None, int]:
    """The tail of an ended run's verifier output, the expected answer and the task's withheld values masked, and
    how many lines were withheld; (None, 0) while it runs. It is what says why a run failed."""
    if run.active:
        return None, 0
    output, masked = mask_expected(_tail(record.trial_dir(store, run.id) / "verifier" / "test-stdout.txt"))
    values = task_answer_values(store, run) if values is None else values
    if output and values:
        output = mask_values(output, values)[0]
    return output, masked


RENDER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}\.png$")
MAX_RENDERS, MAX_RENDER_BYTES = 4, 8 * 1024 * 1024


def verifier_render(store, run: RunRecord, name: str) -> Path | None:
    """A picture the verifier saved of the agent's work (a Webdev task's screenshot of the page), when the run may
    show it: ended, not the oracle's (its render is the reference answer), a PNG directly in the trial's verifier
    folder, of a bounded size. None otherwise."""
    if run.active or run.agent == "oracle" or not RENDER_NAME.match(name):
        return None
    path = record.trial_dir(store, run.id) / "verifier" / name
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_RENDER_BYTES:
            return None
        with path.open("rb") as picture:
            return path if picture.read(8) == b"\x89PNG\r\n\x1a\n" else None
    except OSError:
        return None


def verifier_renders(store, run: RunRecord) -> list[str]:
    folder = record.trial_dir(store, run.id) / "verifier"
    if run.active or run.agent == "oracle" or not folder.is_dir():
        return []
    names = sorted(p.name for p in folder.iterdir() if p.suffix == ".png")
    return [n for n in names if verifier_render(store, run, n)][:MAX_RENDERS]


def run_view(store, run: RunRecord, shown_events: list[dict], owner: bool) -> dict:
    trial = record.trial_dir(store, run.id)
    values = task_answer_values(store, run)
    verifier_text, masked = verifier_output(store, run, values)
    shown_events = [masked_event(e, values) for e in shown_events]
    return {
        "status": run.status,
        "status_label": STATUS_LABELS.get(run.status, run.status),
        "active": run.active,
        "reward_text": reward_text(run),
        "rewards": run.rewards or {},
        "outcome": run.outcome,
        "result": of_run(run),
        "timings": [(TIMING_LABELS.get(k, k), f"{v:.2f} s") for k, v in run.timings.items()],
        "whole_run": f"{run.timings['total']:.2f} s" if "total" in run.timings else None,
        "usage": run.usage,
        "judge": judge_text(run),
        "judge_cost": judge_cost(run),
        "provenance": provenance_rows(run),
        "limits": (run.provenance or {}).get("limits"),
        "events": shown_events,
        "verifier_output": verifier_text,
        "renders": verifier_renders(store, run),
        "verifier_masked": masked,
        "answer_hidden": run.agent == "oracle",
        "sandbox_notes": sandbox_notes(trial) if not run.active else [],
        "can_stop": owner and run.active,
        "owner": owner,
    }


def judge_text(run: RunRecord) -> str | None:
    """A model-graded run's judge and the calls its verifier made to it (rlx/runs/judge_relay.py)."""
    if not run.judge:
        return None
    if run.active:  # counted when the run ends
        return run.judge
    return f"{run.judge} · {run.judge_calls} call{'' if run.judge_calls == 1 else 's'}"


def judge_cost(run: RunRecord) -> float | str | None:
    """What the judge's calls cost: dollars, "unknown", or None (no call, or the run has not ended)."""
    usage = run.usage or {}
    return usage.get("judge_cost_usd", usage.get("judge_cost"))


def reward_text(run: RunRecord) -> str:
    if run.active:
        return "not yet"
    if not run.scored or run.reward is None:
        return "Not scored"
    return f"{run.reward:g}"


# The sandbox as a reader names it; the record keeps the class Harbor loaded (provenance["sandbox"]) for tools.
SANDBOX_NAMES = {LOCAL: "Local (bubblewrap)", HF: "HF Sandbox (a Hugging Face Job on the visitor's account)"}


def provenance_rows(run: RunRecord) -> list[tuple[str, str]]:
    p = run.provenance or {}
    rows = [("Task", f"{run.env_id} · {run.ref}"), ("Task revision", run.revision or "working copy"),
            ("Agent", run.agent), ("Model", run.model or f"no model ({run.agent})"),
            ("Sandbox", SANDBOX_NAMES.get(run.sandbox) or p.get("sandbox") or run.sandbox)]
    rows += [(name, p[key]) for name, key in (("Harbor", "harbor"), ("litellm", "litellm"), ("rlx", "rlx"),
                                              ("Python", "python"), ("bubblewrap", "bwrap")) if p.get(key)]
    return rows


def trajectory_steps(trial_dir) -> list[dict]:
    """An agent's steps from agent/trajectory.json (ATIF): what it said, the keystrokes or commands it sent,
    what it saw."""
    try:
        data = json.loads((trial_dir / "agent" / "trajectory.json").read_text())
    except (OSError, ValueError):
        return []
    return atif_steps(data)


def atif_steps(data: dict) -> list[dict]:
    steps = []
    for step in data.get("steps") or []:
        if not isinstance(step, dict) or step.get("source") not in ("agent", None):
            continue
        calls = []
        for call in step.get("tool_calls") or []:
            arguments = call.get("arguments") if isinstance(call, dict) else None
            if isinstance(arguments, dict):
                text = arguments.get("keystrokes") or arguments.get("command") or json.dumps(arguments)[:2000]
                calls.append({"name": call.get("function_name") or "call", "text": str(text)[:4000]})
        observation = step.get("observation") or {}
        seen = "\n".join(str(r.get("content") or "") for r in observation.get("results") or []
                         if isinstance(r, dict))
        steps.append({"n": step.get("step_id"), "message": str(step.get("message") or "")[:4000], "calls": calls,
                      "observation": seen[-4000:]})
    return steps


# A verifier's line that may state the expected value: "expected 42", "assert 41 == 42", "should be", pytest's
# "E   " detail lines, "want:"/"got:" pairs. Withheld whole: answers are never shown, the pass/fail lines stay.
_EXPECTED = re.compile(r"expect|should (?:be|equal|have)|answer|solution|\bwant|\bgot\b|==|!=|^\s*E\s|"
                       r"^\s*[-+?] |differ|mismatch|\bvs\.?\b", re.IGNORECASE)


def mask_expected(text: str | None) -> tuple[str | None, int]:
    if text is None:
        return None, 0
    kept, masked = [], 0
    for line in text.splitlines():
        if _EXPECTED.search(line):
            masked += 1
            if not kept or kept[-1] != MASK:  # the one mask every exit uses
                kept.append(MASK)
        else:
            kept.append(line)
    return "\n".join(kept), masked


def sandbox_notes(trial_dir) -> list[str]:
    """What the local sandbox could not do as the Dockerfile asked (from trial.log), so the reward is read right."""
    text = _tail(trial_dir / "trial.log") or ""
    return [line.strip()[:400] for line in text.splitlines()
            if "Dockerfile RUN skipped" in line or "is not replayed" in line][:20]


def _tail(path) -> str | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - VERIFIER_TAIL))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    return ("…\n" + text) if size > VERIFIER_TAIL else text
