"""One Harbor task, read from its files into an index row and a pack entry, answers withheld on the way in.

Pure functions of the task's file list and the texts fetched for it: no source, no store. What the agent gets
(instruction.md) is kept as it is, minus Harbor's canary lines; everything that could give the answer away is
withheld (solution/, data beside the grader, answer-keyed metadata) or masked (answers written into grader
scripts and task.toml) before it reaches the pack, so no later step can leak it.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re

from rlx.adapters.contract import TaskRow
from rlx.adapters.harbor.dockerfile import analyze_dockerfile
from rlx.adapters.harbor.taskconfig import TaskTomlError, parse_task_toml, runnable_here
from rlx.adapters.withhold import mask_grader_script, mask_toml_answers, strip_answers, withheld_file_reason
from rlx.sources.base import FileEntry

SMALL_TEXT_MAX = 64 * 1024  # other text files packed for the viewer, when the listing knows them
TEXT_SUFFIXES = {
    ".md", ".txt", ".toml", ".sh", ".bash", ".py", ".json", ".yaml", ".yml", ".cfg", ".ini", ".js", ".ts", ".c",
    ".h", ".cc", ".cpp", ".rs", ".go", ".java", ".rb", ".sql", ".csv", ".tsv", ".html", ".css", ".r", ".jl",
    ".lua", ".pl", ".php", ".xml", ".env", ".patch", ".diff", ".dockerfile", ".conf", ".mk", ".bat", ".ps1",
}
TEXT_NAMES = {"Dockerfile", "Makefile", "README", "LICENSE", ".gitignore", ".harborignore"}
_CANARY = re.compile(r"^\s*(<!--.*canary.*-->|#.*canary.*)\s*$", re.I)
_REWARD_NAMES = re.compile(r"[\"']([A-Za-z_][\w.-]{0,40})[\"']\s*:")


def ref_for(task_dir: str) -> str:
    """A task's ref in URLs: its folder, without a leading `tasks/` (the common layout adds nothing)."""
    if task_dir.startswith("tasks/"):
        return task_dir[len("tasks/"):]
    return task_dir or "task"


def files_to_fetch(entries: list[FileEntry], walked: bool) -> list[str]:
    """The task-relative paths whose text the index or the task page needs."""
    paths = {e.path for e in entries if not e.is_dir}
    wanted = [p for p in ("task.toml", "instruction.md", "README.md", "environment/Dockerfile",
                          "environment/docker-compose.yaml", "environment/docker-compose.yml",
                          "tests/test.sh", "tests/test.bat") if p in paths]
    if not walked:
        wanted += sorted(
            e.path for e in entries
            if not e.is_dir and e.path not in wanted and e.size <= SMALL_TEXT_MAX and is_text_name(e.path)
            and withheld_file_reason(e.path) is None
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


def read_task(task_dir: str, entries: list[FileEntry], texts: dict[str, str], walked: bool = False
              ) -> tuple[TaskRow, dict]:
    """The index row and the pack entry of one task (texts hold what was fetched, by task-relative path)."""
    ref = ref_for(task_dir)
    withheld: list[list[str]] = []
    file_list = []
    for entry in sorted(entries, key=lambda e: e.path):
        reason = withheld_file_reason(entry.path, is_dir=entry.is_dir)
        if reason:
            withheld.append([entry.path, reason])
        file_list.append([entry.path, entry.type, entry.size, reason])
    packed: dict[str, str] = {}
    for path, text in texts.items():
        if withheld_file_reason(path):
            continue
        if path.endswith("task.toml"):
            text, found = mask_toml_answers(text)
        elif path.startswith("tests/") or "/tests/" in path:
            text, found = mask_grader_script(text, where=path)
        else:
            found = []
        withheld += [[w.where, w.why] for w in found]
        packed[path] = text

    config, error = None, None
    if "task.toml" in texts:
        try:
            config = parse_task_toml(texts["task.toml"])
        except TaskTomlError as exc:
            error = str(exc)
    else:
        error = "this folder's task.toml could not be read."

    instruction = strip_canary(texts.get("instruction.md", ""))
    if "instruction.md" in texts:
        packed["instruction.md"] = instruction
    entry = {"dir": task_dir, "walked": walked, "files": file_list, "texts": packed, "error": error}
    facets: dict = {}
    title, brief = _default_title(ref), _brief(instruction)
    if config is not None:
        meta, meta_withheld = strip_answers(config.metadata, "metadata")
        withheld += [[w.where, w.why] for w in meta_withheld]
        extra, extra_withheld = strip_answers(config.extra, "")
        withheld += [[w.where.lstrip("."), w.why] for w in extra_withheld]
        entry["config"] = _config_summary(config, meta, extra)
        entry["grading"] = grading_of(texts, entries)
        entry["runtime"] = runtime_of(config, texts, entries)
        facets = _facets(config, meta, entry)
        if config.task and config.task.description:
            brief = brief or config.task.description
        title = str(meta.get("title") or title)
        if not brief and config.is_multi_step:
            brief = _brief(texts.get(f"steps/{config.steps[0].get('name', '')}/instruction.md", ""))
    entry["withheld"] = withheld
    plan = (entry.get("runtime") or {}).get("dockerfile") or {}
    row = TaskRow(ref=ref, title=title, brief=brief, facets=facets, error=error,
                  extra={"_dir": task_dir, "withheld": len(withheld), "replayable": bool(plan.get("replayable"))})
    return row, entry


def grading_of(texts: dict[str, str], entries: list[FileEntry]) -> dict:
    """How the verifier scores: reward.txt (one number) or reward.json (named scores), and its test framework."""
    scripts = "\n".join(t for p, t in texts.items() if p.startswith("tests/"))
    has_tests = any(e.path.startswith("tests/") for e in entries)
    if "reward.json" in scripts:
        names = sorted({n for n in _REWARD_NAMES.findall(scripts) if n not in ("reward",)} - {"ok", "error"})
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


def runtime_of(config, texts: dict[str, str], entries: list[FileEntry]) -> dict:
    """What the task runs in, and whether this machine's sandbox can run it (with the reasons it cannot)."""
    paths = {e.path for e in entries}
    compose = next((p for p in ("environment/docker-compose.yaml", "environment/docker-compose.yml") if p in paths),
                   None)
    runs, reasons = runnable_here(config)
    plan = None
    if config.environment.docker_image:
        kind = "image"
    elif "environment/Dockerfile" in paths:
        kind = "dockerfile"
    elif compose:
        kind = "compose"
    else:
        kind = "none"
        runs, reasons = False, [*reasons, "it names no image and ships no Dockerfile."]
    if "environment/Dockerfile" in texts:
        plan = dataclasses.asdict(analyze_dockerfile(texts["environment/Dockerfile"]))
        if kind == "dockerfile" and not plan["replayable"]:
            runs, reasons = False, [*reasons, *plan["reasons"]]
    if compose:
        runs, reasons = False, [*reasons, "it needs several containers (docker-compose)."]
    return {"kind": kind, "image": config.environment.docker_image, "compose": compose, "dockerfile": plan,
            "runs_here": runs, "why_not": reasons}


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
        facets["cpus"] = _text(env.cpus)
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
    """The first paragraph of the instruction, as plain text, cut at a word."""
    for block in re.split(r"\n\s*\n", instruction):
        text = re.sub(r"[#>*_`]+", "", block).strip()
        if text:
            text = " ".join(text.split())
            return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"
    return ""
