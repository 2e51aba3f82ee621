"""Task folders without task.toml: which folders are tasks, and which of their files are withheld.

A folder is a task when it holds an instruction file (instruction.md, prompt.md, task.md, README.md...) and a
way to grade (a tests/ folder, or a grader script such as grade.py, evaluate.py, test.sh). The outermost such
folder wins: folders inside a task belong to it.

Withholding is Harbor's, on each file's Harbor place (`as_harbor`): solution/ and the grader's data withheld, a
loose `expected.json` next to `grade.py` judged as data beside the grader, graders masked across the task.
"""

from __future__ import annotations

import posixpath

from rlx.adapters.withhold import withheld_file_reason

INSTRUCTION_NAMES = ("instruction.md", "instructions.md", "prompt.md", "task.md", "prompt.txt", "PROMPT.md",
                     "TASK.md", "README.md")
GRADER_DIRS = ("tests", "test", "grader", "graders", "grading", "eval", "evals", "evaluation", "checks",
               "hidden_tests")
GRADER_SCRIPTS = ("grade.py", "grader.py", "grade.sh", "evaluate.py", "eval.py", "check.py", "verify.py",
                  "judge.py", "score.py", "test.sh", "run_tests.sh", "tests.py")
ENVIRONMENT_DIRS = ("environment", "env", "workspace", "starter", "app", "src", "files", "assets")


def task_folders(paths: list[str], max_tasks: int) -> dict[str, list[str]]:
    """{task folder: its file paths relative to it}, for every outermost task folder among `paths` (files)."""
    by_folder: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            by_folder.setdefault("/".join(parts[:depth]), set()).add("/".join(parts[depth:]))
    tasks: dict[str, list[str]] = {}
    for folder in sorted(by_folder, key=lambda f: (f.count("/"), f)):
        if any(folder.startswith(t + "/") for t in tasks):
            continue  # inside a task already found
        inside = by_folder[folder]
        if instruction_of(inside) and grader_of(inside):
            tasks[folder] = sorted(inside)
            if len(tasks) >= max_tasks:
                break
    return tasks


def instruction_of(files) -> str | None:
    names = set(files)
    return next((n for n in INSTRUCTION_NAMES if n in names), None)


def grader_of(files) -> str | None:
    """The grader's entry point: a root grader script, else the first script in a grader folder."""
    names = set(files)
    root = next((n for n in GRADER_SCRIPTS if n in names), None)
    if root:
        return root
    for folder in GRADER_DIRS:
        inside = sorted(f for f in names if f.startswith(folder + "/"))
        scripts = [f for f in inside if posixpath.splitext(f)[1] in (".sh", ".py")]
        if scripts:
            preferred = [f for f in scripts if posixpath.basename(f) in GRADER_SCRIPTS]
            return (preferred or scripts)[0]
    return None


def as_harbor(path: str, instruction: str | None) -> str:
    """Where `path` would sit in a Harbor task, so Harbor's withholding rules judge it: the instruction file as
    instruction.md, a grader folder by another name (grader/, eval/, checks/...) and a root grader script as
    tests/, the agent's files (workspace/, starter/...) as environment/. Anything else stays where it is and is
    judged as Harbor judges a file beside task.toml: answer-named or data, withheld; scripts and prose, masked."""
    parts = path.split("/")
    if path == instruction:
        return "instruction.md"
    if parts[0] in GRADER_DIRS:
        return "/".join(["tests", *parts[1:]])
    if parts[0] in ENVIRONMENT_DIRS and len(parts) > 1:
        return "/".join(["environment", *parts[1:]])
    if len(parts) == 1 and path in GRADER_SCRIPTS:
        return f"tests/{path}"
    return path


def withheld_reason(path: str, instruction: str | None, is_dir: bool = False) -> str | None:
    """Why the task-relative file (or folder) at `path` is withheld (a sentence), or None when it may be shown."""
    return withheld_file_reason(as_harbor(path, instruction), is_dir=is_dir)
