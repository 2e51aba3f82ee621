"""Task folders without task.toml: which folders are tasks, and which of their files are withheld.

A folder is a task when it holds an instruction file (instruction.md, prompt.md, task.md, README.md...) and a
way to grade (a tests/ folder, or a grader script such as grade.py, evaluate.py, test.sh). The outermost such
folder wins: folders inside a task belong to it.

Withholding follows the shared file rule (solution/, data beside the grader) and extends it the way the rule
for Harbor tasks reads: a grader folder by another name (grader/, eval/, checks/...) is judged as tests/ is, and
a file at the task's root that is neither its instruction nor a known build file is judged as a file beside the
grader, since a loose `expected.json` next to `grade.py` is exactly what the grader compares with.
"""

from __future__ import annotations

import posixpath

from rlx.adapters.withhold import is_answer_key, withheld_file_reason
from rlx.adapters.withhold.files import BUILD_FILES

INSTRUCTION_NAMES = ("instruction.md", "instructions.md", "prompt.md", "task.md", "prompt.txt", "PROMPT.md",
                     "TASK.md", "README.md")
GRADER_DIRS = ("tests", "test", "grader", "graders", "grading", "eval", "evals", "evaluation", "checks",
               "hidden_tests")
GRADER_SCRIPTS = ("grade.py", "grader.py", "grade.sh", "evaluate.py", "eval.py", "check.py", "verify.py",
                  "judge.py", "score.py", "test.sh", "run_tests.sh", "tests.py")
ENVIRONMENT_DIRS = ("environment", "env", "workspace", "starter", "app", "src", "files", "assets")
ANSWER_NAME_WHY = "Its name says it holds answers for the grader."


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


def is_grader_place(path: str, instruction: str | None) -> bool:
    """A grader folder's file, or a root file that is not the instruction or a build file."""
    parts = path.split("/")
    if parts[0] in GRADER_DIRS:
        return True
    return len(parts) == 1 and path != instruction and path not in INSTRUCTION_NAMES \
        and path.lower() not in BUILD_FILES


def withheld_reason(path: str, instruction: str | None) -> str | None:
    """Why the task-relative file at `path` is withheld (a sentence), or None when it may be shown."""
    reason = withheld_file_reason(path)
    if reason:
        return reason
    parts = path.split("/")
    if is_grader_place(path, instruction):
        inside = parts[1:] if parts[0] in GRADER_DIRS else parts
        return withheld_file_reason("tests/" + "/".join(inside))
    if any(_names_answer(part) for part in parts):
        return ANSWER_NAME_WHY
    return None


def _names_answer(name: str) -> bool:
    return any(is_answer_key(piece) for piece in name.split(".") if piece)
