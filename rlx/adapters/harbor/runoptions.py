"""Where a Harbor task can run, and where not, why: the run options its task page offers.

`local` is this machine's bubblewrap sandbox; `hf` an HF Sandbox (a Hugging Face Job) on the visitor's own account,
which starts the task's prebuilt image or its Dockerfile's base image and replays the steps (hf_fit.py; whether the
visitor is signed in is the web's to add: rlx/runs/sandboxes.py).
`local` It runs a task when the reader found it runnable here and the
image question is answered: a Dockerfile the replay plan can run, or a prebuilt image whose files ship beside
the task (Harbor uploads them into the sandbox). A task that needs its prebuilt image's own system, a Dockerfile
step the sandbox cannot replay, GPUs, compose services or an allowlist gets the reason instead of a form.
"""

from __future__ import annotations

from rlx.adapters.contract import RunField, RunOption
from rlx.adapters.harbor.hf_fit import hf_reasons
from rlx.runs.agents import AGENTS as REGISTRY, MODEL_AGENTS, NAMES, task_reason
from rlx.runs.judges import FIELD as JUDGE_FIELD, model_graded

AGENTS = list(NAMES)  # which of them runs on this host is decided per request (rlx/runs/rollout_rules.py)
_FOR_MODEL = " ".join(MODEL_AGENTS)
VISIBILITY = ["private", "public"]


def local_option(entry: dict) -> RunOption:
    runtime = entry.get("runtime") or {}
    can_run, reasons = bool(runtime.get("runs_here")), list(runtime.get("why_not") or [])
    if not runtime:
        can_run, reasons = False, ["its task.toml could not be read, so Harbor cannot run it."]
    elif runtime.get("kind") == "image" and can_run and not _has_environment_files(entry):
        can_run = False
        reasons.append(f"it runs in the prebuilt image {runtime.get('image')}, and the local sandbox has no "
                       "images: it runs the task on this worker's own system with the task's files, and this "
                       "task ships none.")
    fields = _fields(_metadata(entry)) + ([judge_field()] if model_graded(entry.get("config")) else []) if can_run else []
    return RunOption(key="local", label="This machine's sandbox (bubblewrap)", runner="harbor", can_run=can_run,
                     why_not=" ".join(_sentence(r) for r in reasons) if not can_run else None, fields=fields)


def hf_option(entry: dict) -> RunOption:
    """An HF Sandbox starts the task's image, or its Dockerfile's base image with the steps replayed (hf_fit.py)."""
    reasons = hf_reasons(entry)
    if model_graded(entry.get("config")):
        # The judge relay reaches a sandbox through a unix socket linked into it (rlx/runs/judge_relay.py), which a
        # remote HF Sandbox cannot be given.
        reasons.append("it is graded by a judge model, which only this machine's sandbox can reach for now.")
    can_run = not reasons
    return RunOption(key="hf", label="HF Sandbox (a Hugging Face Job on your account)", runner="harbor",
                     can_run=can_run, why_not=None if can_run else " ".join(_sentence(r) for r in reasons),
                     fields=_fields(_metadata(entry)) if can_run else [])


def _fields(metadata: dict | None) -> list[RunField]:
    """The run form's fields; an agent made for other tasks (mimo on a task that is not MiMo's) is listed greyed
    with the reason. The default stays oracle, so a MiMo task still runs on its Harbor conversion unless asked."""
    unfit = [[a.name, why] for a in REGISTRY if (why := task_reason(a, metadata))]
    choices = [name for name in AGENTS if name not in dict(unfit)]
    return [
        RunField("agent", "Agent", "choice", choices, "oracle", unavailable=unfit),
        RunField("visibility", "Who can see the run", "choice", VISIBILITY, "private"),
        RunField("model", "Model (agents that use one)", "text", for_agent=_FOR_MODEL),
        RunField("endpoint", "OpenAI-compatible endpoint (agents that use a model)", "url", for_agent=_FOR_MODEL),
        RunField("api_key", "API key for that endpoint", "password", for_agent=_FOR_MODEL),
    ]


def judge_field() -> RunField:
    """A model-graded task's judge choice; its choices are the admin's pool, filled per request
    (rlx/runs/judges.py offer_judges)."""
    return RunField(JUDGE_FIELD, "Judge model (grades this task's answer)", "choice", [], None)


def _metadata(entry: dict) -> dict:
    metadata = (entry.get("config") or {}).get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _has_environment_files(entry: dict) -> bool:
    return any(path.startswith("environment/") and kind == "file" for path, kind, *_ in entry.get("files") or [])


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[0].upper() + text[1:]) if text else text
