"""One Harbor task, read from its files into an index row and a pack entry, answers withheld on the way in.

Pure functions of the task's file list and the texts fetched for it: no source, no store. What the agent gets
(instruction.md) is kept as it is, minus Harbor's canary lines; everything that could give the answer away is
withheld (solution/, data beside the grader, answer-keyed metadata) or masked (answers written into grader
scripts, task.toml and task.yaml) before it reaches the pack, so no later step can leak it. Older Terminal-Bench
tasks (task.yaml, run-tests.sh) are read into the same shape (layout.py says where each part is).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re

from rlx.adapters.contract import TaskRow
from rlx.adapters.harbor.compose import read_services
from rlx.adapters.harbor.dockerfile import analyze_dockerfile
from rlx.adapters.harbor.hf_fit import hf_reasons
from rlx.adapters.harbor.layout import HARBOR, TERMINAL_BENCH_1, Layout, layout_of
from rlx.adapters.harbor.numbers import plain
from rlx.adapters.harbor.taskconfig import TaskTomlError, parse_task_toml, runnable_here
from rlx.adapters.harbor.tb1 import parse_task_yaml
from rlx.adapters.task_words import search_words
from rlx.adapters.withhold import mask_values_in, strip_answers, withheld_file_reason, withhold_task_texts
from rlx.sources.base import FileEntry
from rlx.sources.cardtext import card_summary

SMALL_TEXT_MAX = 64 * 1024  # other text files packed for the viewer, when the listing knows them
TEXT_SUFFIXES = {
    ".md", ".txt", ".toml", ".sh", ".bash", ".py", ".json", ".yaml", ".yml", ".cfg", ".ini", ".js", ".ts", ".c",
    ".h", ".cc", ".cpp", ".rs", ".go", ".java", ".rb", ".sql", ".csv", ".tsv", ".html", ".css", ".r", ".jl",
    ".lua", ".pl", ".php", ".xml", ".env", ".patch", ".diff", ".dockerfile", ".conf", ".mk", ".bat", ".ps1",
}
TEXT_NAMES = {"Dockerfile", "Makefile", "README", "LICENSE", ".gitignore", ".harborignore"}
_CANARY = re.compile(r"^\s*(<!--.*canary.*-->|#.*canary.*)\s*$", re.I)
_REWARD_NAMES = re.compile(r"[\"']([A-Za-z_][\w.-]{0,40})[\"']\s*:")
NESTED_TASK_WHY = "A task of its own, with its own page: its answers are withheld there as here."
# Read for the values they write out (masked wherever a grader repeats them), never packed or shown.
SOLUTIONS_READ = ("solution/solve.sh", "solution.sh")


def ref_for(task_dir: str) -> str:
    """A task's ref in URLs: its folder, without a leading `tasks/` (the common layout adds nothing)."""
    if task_dir.startswith("tasks/"):
        return task_dir[len("tasks/"):]
    return task_dir or "task"


def files_to_fetch(entries: list[FileEntry], walked: bool) -> list[str]:
    """The task-relative paths whose text the index or the task page needs."""
    paths = {e.path for e in entries if not e.is_dir}
    layout = layout_of(paths)
    wanted = [p for p in (layout.config, "instruction.md", "README.md", layout.dockerfile, *layout.composes,
                          *layout.graders, *SOLUTIONS_READ) if p in paths]
    if not walked:
        wanted += sorted(
            e.path for e in entries
            if not e.is_dir and e.path not in wanted and e.size <= SMALL_TEXT_MAX and is_text_name(e.path)
            and withheld_file_reason(e.path, environment_root=layout.environment_root) is None
        )
    return wanted


def is_text_name(path: str) -> bool:
    name = posixpath.basename(path)
    return name in TEXT_NAMES or posixpath.splitext(name)[1].lower() in TEXT_SUFFIXES


def strip_canary(text: str) -> str:
    lines = text.splitlines()
    while lines and (_CANARY.match(lines[0]) or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def read_task(task_dir: str, entries: list[FileEntry], texts: dict[str, str], walked: bool = False,
              nested: dict[str, str] | None = None) -> tuple[TaskRow, dict]:
    """The index row and the pack entry of one task (texts hold what was fetched, by task-relative path).

    `nested` maps the folders inside this task that hold a task of their own to that task's ref.
    """
    ref = ref_for(task_dir)
    nested = nested or {}
    layout = layout_of({e.path for e in entries} | set(texts))
    withheld: list[list[str]] = []
    file_list = []
    for entry in sorted(entries, key=lambda e: e.path):
        if entry.path in nested:
            reason = NESTED_TASK_WHY
        else:
            reason = withheld_file_reason(entry.path, is_dir=entry.is_dir, nested=nested,
                                          environment_root=layout.environment_root)
        if reason:
            withheld.append([entry.path, reason])
        file_list.append([entry.path, entry.type, entry.size, reason])

    config, error, harness = None, None, None
    instruction = strip_canary(texts.get("instruction.md", ""))
    if layout.config not in texts:
        error = f"this folder's {layout.config} could not be read."
    elif layout is TERMINAL_BENCH_1:
        try:
            config, instruction, harness = parse_task_yaml(texts[layout.config])
        except TaskTomlError as exc:
            error = str(exc)
    else:
        try:
            config = parse_task_toml(texts[layout.config])
        except TaskTomlError as exc:
            error = str(exc)

    shown = withhold_task_texts(texts, nested=nested, public=instruction, environment_root=layout.environment_root)
    packed, values = shown.texts, shown.values
    withheld += [[w.where, w.why] for w in shown.withheld]
    if instruction or layout is HARBOR and "instruction.md" in texts:
        packed[layout.instruction] = instruction
    entry = {"dir": task_dir, "walked": walked, "files": file_list, "texts": packed, "error": error,
             "format": layout.format, "nested": nested, "_answer_values": values}
    if harness is not None:
        entry["harness"] = harness
    facets: dict = {}
    title, brief = _default_title(ref), _brief(instruction)
    if config is not None:
        meta, meta_withheld = strip_answers(config.metadata, "metadata")
        withheld += [[w.where, w.why] for w in meta_withheld]
        extra, extra_withheld = strip_answers(config.extra, "")
        withheld += [[w.where.lstrip("."), w.why] for w in extra_withheld]
        summary, summary_withheld = mask_values_in(_config_summary(config, meta, extra), values)
        withheld += [[w.where, w.why] for w in summary_withheld]
        entry["config"] = summary
        entry["grading"] = grading_of(packed, entries, layout, harness)
        entry["runtime"] = runtime_of(config, texts, entries, layout)
        facets, _ = mask_values_in(_facets(config, meta, entry), values)
        if layout is TERMINAL_BENCH_1:
            facets["format"] = "terminal-bench-1"
        if config.task and config.task.description:
            brief = brief or summary["task"]["description"]
        title = str(summary["metadata"].get("title") or title)
        if not brief and config.is_multi_step:
            brief = _brief(texts.get(f"steps/{config.steps[0].get('name', '')}/instruction.md", ""))
    (title, brief, said), _ = mask_values_in([title, brief, instruction or ""], values)
    entry["withheld"] = withheld
    plan = (entry.get("runtime") or {}).get("dockerfile") or {}
    extra = {"_dir": task_dir, "withheld": len(withheld), "replayable": bool(plan.get("replayable")),
             "hf": not hf_reasons(entry)}
    words = search_words(said, title, brief)
    if words:
        extra["_words"] = words  # the rest of the instruction, for task search only
    row = TaskRow(ref=ref, title=title, brief=brief, facets=facets, error=error, extra=extra)
    return row, entry


def grading_of(texts: dict[str, str], entries: list[FileEntry], layout: Layout = HARBOR,
               harness: dict | None = None) -> dict:
    """How the verifier scores: reward.txt (one number) or reward.json (named scores), and its test framework.

    A Terminal-Bench 1 task has no reward file: it passes when every test its parser reads from the output passes.
    """
    scripts = "\n".join(t for p, t in texts.items() if p.startswith("tests/") or p in layout.graders)
    has_tests = any(e.path.startswith("tests/") or e.path in layout.graders for e in entries)
    if layout is TERMINAL_BENCH_1:
        output = {"file": "pass/fail", "scores": [], "parser": (harness or {}).get("parser", "pytest")}
    elif "reward.json" in scripts:
        # The names come from the scripts that write the file, not from every test: tests hold dicts of their own.
        writers = "\n".join(t for p, t in texts.items() if (p.startswith("tests/") or p in layout.graders)
                             and "reward.json" in t)
        names = sorted({n for n in _REWARD_NAMES.findall(writers) if n not in ("reward",)} - {"ok", "error"})
        output = {"file": "reward.json", "scores": names[:12]}
    elif "reward.txt" in scripts:
        output = {"file": "reward.txt", "scores": ["reward"]}
    else:
        output = {"file": "unknown" if has_tests else "none", "scores": []}
    if re.search(r"\bpytest\b", scripts):
        framework = "pytest"
    elif re.search(r"\bpython3?\b", scripts) or any(p.endswith(".py") for p in texts if p.startswith("tests/")):
        framework = "python"
    elif scripts:
        framework = "bash"
    else:
        framework = "none"
    return {**output, "framework": framework}


def runtime_of(config, texts: dict[str, str], entries: list[FileEntry], layout: Layout = HARBOR) -> dict:
    """What the task runs in, and whether this machine's sandbox can run it (with the reasons it cannot).

    A task with a docker-compose file runs as compose, whatever else it has: Harbor starts every service in it
    beside the agent's container. A Terminal-Bench 1 compose file that holds only the agent's container built
    from the task's Dockerfile is that Dockerfile (Harbor's mapper folds it the same way).
    """
    paths = {e.path for e in entries}
    compose = next((p for p in layout.composes if p in paths), None)
    services, compose_error = read_services(texts[compose], layout.main_service) if compose in texts else ([], None)
    if layout is TERMINAL_BENCH_1 and compose and _only_the_agent(services, layout):
        compose, services = None, []
    runs, reasons = runnable_here(config)
    plan = None
    image = config.environment.docker_image
    if compose:
        kind = "compose"
        names = ", ".join(s["name"] for s in services) or "services the index could not read"
        runs, reasons = False, [*reasons, f"it runs as several containers with docker-compose ({names}), which "
                                          "the local sandbox does not start."]
    elif image:
        kind = "image"
    elif layout.dockerfile in paths:
        kind = "dockerfile"
    else:
        kind = "none"
        runs, reasons = False, [*reasons, "it names no image and ships no Dockerfile."]
    if layout.dockerfile in texts:
        plan = dataclasses.asdict(analyze_dockerfile(texts[layout.dockerfile]))
        if kind == "dockerfile" and not plan["replayable"]:
            runs, reasons = False, [*reasons, *plan["reasons"]]
    if layout is TERMINAL_BENCH_1:
        runs, reasons = False, [*reasons, "it is in the older Terminal-Bench format (run-tests.sh), which the local "
                                          "sandbox does not run."]
    return {"kind": kind, "image": image, "compose": compose, "services": services,
            "compose_error": compose_error, "dockerfile": plan, "runs_here": runs, "why_not": reasons,
            "caveats": _verifier_caveats(texts, layout) if runs else []}


# A verifier that installs system packages when it runs (common in real tasks: `apt-get install curl` in
# tests/test.sh) needs root; the local sandbox runs unprivileged, so that step fails and the score depends on
# what the worker already has.
_SYSTEM_INSTALL = re.compile(r"^\s*(?:sudo\s+)?(apt-get|apt|apk|yum|dnf|microdnf|zypper)\s+(?:-\S+\s+)*(install|add|update)\b",
                             re.M)


def _verifier_caveats(texts: dict[str, str], layout: Layout) -> list[str]:
    tools = sorted({m.group(1) for p, t in texts.items() if p.startswith("tests/") or p in layout.graders
                    for m in _SYSTEM_INSTALL.finditer(t)})
    if not tools:
        return []
    return [f"Its verifier installs system packages when it runs ({', '.join(tools)}), which needs root: in the "
            "local sandbox that step fails, so its score depends on what this machine already has. An HF Sandbox "
            "runs it as written."]


def _only_the_agent(services: list[dict], layout: Layout) -> bool:
    return len(services) == 1 and services[0]["name"] == layout.main_service and services[0]["build"] is not None


def _facets(config, meta: dict, entry: dict) -> dict:
    env = config.environment
    tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
    keywords = config.task.keywords if config.task else []
    facets = {
        "category": _text(meta.get("category")),
        "difficulty": _text(meta.get("difficulty")),
        "tags": sorted({str(t) for t in [*tags, *keywords] if str(t).strip()})[:20],
        "grading": entry["grading"]["file"],
        "framework": entry["grading"]["framework"],
        "runtime": entry["runtime"]["kind"],
        "network": config.effective_network("agent"),
        "runs_here": "yes" if entry["runtime"]["runs_here"] else "no",
        "steps": "multi-step" if config.is_multi_step else "single-step",
    }
    if env.cpus is not None:
        facets["cpus"] = plain(env.cpus)
    if env.memory_mb is not None:
        facets["memory"] = f"{env.memory_mb / 1024:g} GB" if env.memory_mb >= 1024 else f"{env.memory_mb} MB"
    for key, value in meta.items():  # whatever else the dataset's metadata offers, when short and plain
        if key not in facets and key not in ("tags", "title", "description") and isinstance(value, (str, bool)):
            text = _text(value)
            if text and len(text) <= 40 and "@" not in text:
                facets[key] = text
    return {k: v for k, v in facets.items() if v not in (None, "", [])}


def _config_summary(config, meta: dict, extra: dict) -> dict:
    summary = dataclasses.asdict(config)
    summary["metadata"], summary["extra"] = meta, extra
    summary.pop("solution_env", None)  # the reference solution's environment belongs to the answer
    summary["verifier"]["env"] = sorted(config.verifier.env)  # names only: values may hold secrets
    summary["environment"]["env"] = sorted(config.environment.env)
    return summary


def _text(value) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _default_title(ref: str) -> str:
    """A task is known by its folder name (terminal-bench's `chess-best-move`): keep it as written."""
    return ref.rsplit("/", 1)[-1] or ref


def _brief(instruction: str, limit: int = 240) -> str:
    """The first paragraph of the instruction, as plain text (rendered, markup dropped), cut at a word."""
    return card_summary(instruction, limit=limit, min_chars=0)
