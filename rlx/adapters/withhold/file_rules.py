"""Which files of a task are withheld, by their task-relative path.

- `solution/` (and `steps/<step>/solution/`, and a legacy top-level `solution.sh`) always: it is the answer.
- Under `tests/` (and `steps/<step>/tests/`), beside the grader:
  - a file or folder whose name names an answer (expected_output.json, answers.txt, gold/, ref_1.out,
    case.expected, rubric.md...), whatever its kind, scripts included (a reference.py is a solution);
  - every other file that is not a script or a known build file: data beside a grader is there to be
    compared with, so it is withheld by default rather than by guessing from its name.
- Anywhere else that is not the instruction, the environment (`environment/`, a step's `workdir/`) or the task's
  own files (task.toml, README...): a generator or an asset beside task.toml is judged like a file beside the
  grader. Answer-named files are withheld, scripts and prose stay (their text is masked like a grader's), and
  any other file is withheld by default: generated data and its inputs often are the answer.
- In a format whose task root is itself the environment's build context (Terminal-Bench 1: a Dockerfile beside
  task.yaml), `environment_root` says so: files there are the environment, withheld only when answer-named.
- A task inside another task's folder (`nested`, the folders holding their own task.toml) is a task of its own:
  its folder is judged from its own root, so its solution/ and tests/ data are withheld at any depth.
Grader scripts (test.sh, test_outputs.py) stay visible; their text goes through `mask_grader_script`.
Paths are compared case-insensitively, since a case-insensitive checkout would serve SOLUTION/ too.
"""

from __future__ import annotations

from collections.abc import Iterable

from rlx.adapters.paths import safe_relpath
from rlx.adapters.withhold.keys import is_answer_key

SOLUTION_WHY = "Reference solutions are withheld."
ANSWER_FILE_WHY = "Its name says it holds answers for the grader."
GRADER_DATA_WHY = "Data beside the grader is withheld: it usually holds what the agent's work is compared with."
OTHER_DATA_WHY = ("Files outside the instruction, the environment and the tests are withheld unless they are "
                  "scripts or notes: generated data and its inputs often hold the answers.")
UNSAFE_WHY = "The path could lead outside the task folder."

SCRIPT_EXTENSIONS = frozenset({
    "sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "go", "rs", "c", "cc", "cpp", "h",
    "hpp", "java", "kt", "scala", "jl", "r", "lua", "bat", "cmd", "ps1", "swift", "cs",
})
BUILD_FILES = frozenset({
    "dockerfile", "containerfile", "makefile", "requirements.txt", "pyproject.toml", "package.json",
    "docker-compose.yaml", "docker-compose.yml", "pytest.ini", "setup.cfg", "tox.ini", "go.mod", "cargo.toml",
})
# A task's own files at its root (or a step's), shown as they are or masked by their own rules.
TASK_FILES = frozenset({"task.toml", "task.yaml", "instruction.md", ".gitignore", ".harborignore", ".dockerignore"})
# What the agent gets besides the instruction: the environment, and a step's working-directory files.
AGENT_FOLDERS = ("environment", "workdir")
KNOWN_FOLDERS = frozenset({"environment", "workdir", "tests", "steps"})
NOTE_EXTENSIONS = frozenset({"md", "rst"})
NOTE_NAMES = frozenset({"readme", "license", "licence", "notice", "authors", "changelog"})
# Name beginnings that mark answers even where the key rule stays silent ("ref_1.txt": a bare ref is no answer).
ANSWER_PREFIXES = ("ref_", "ref-", "refs_", "refs-")


def withheld_file_reason(relpath: str, is_dir: bool = False, nested: Iterable[str] = (),
                         environment_root: bool = False) -> str | None:
    """Why the file at `relpath` is withheld, as a sentence; None if it may be shown.

    For a folder (`is_dir`), only the folder as a whole is judged: solution/ and answer-named folders are
    withheld; others are listed, and each file in them is judged on its own. `nested` names the folders (relative
    to this task) that hold a task of their own; a path inside one is judged from that task's root.
    """
    clean = safe_relpath(relpath)
    if clean is None:
        return UNSAFE_WHY
    clean = _from_nearest_root(clean, nested)
    parts = clean.lower().split("/") if clean else []
    if len(parts) >= 2 and parts[0] == "steps":
        parts = parts[2:]
    if not parts:
        return None
    head = parts[0]
    if head in ("solution", "solutions") or head.startswith("solution."):
        return SOLUTION_WHY
    if head == "tests" and len(parts) >= 2:
        return _beside_grader(parts[1:], is_dir)
    if head in AGENT_FOLDERS and len(parts) >= 2 or len(parts) == 1 and head in TASK_FILES | KNOWN_FOLDERS:
        return None
    return _elsewhere(parts, is_dir or environment_root)


def _from_nearest_root(clean: str, nested: Iterable[str]) -> str:
    """The path relative to the innermost nested task holding it (unchanged when none does)."""
    roots = [root.strip("/") for root in nested if root and clean.lower().startswith(root.strip("/").lower() + "/")]
    if not roots:
        return clean
    return clean[len(max(roots, key=len)) + 1:]


def _beside_grader(inside: list[str], is_dir: bool) -> str | None:
    if any(_names_answer(name) for name in inside):
        return ANSWER_FILE_WHY
    if not is_dir and not _is_script(inside[-1]):
        return GRADER_DATA_WHY
    return None


def _elsewhere(parts: list[str], listed: bool) -> str | None:
    """A file that is neither instruction, environment nor tests: judged like a file beside the grader (`listed`:
    a folder, or a file of an environment root, is withheld only for its name)."""
    if any(_names_answer(name) for name in parts):
        return ANSWER_FILE_WHY
    if listed or _is_script(parts[-1]) or is_note(parts[-1]):
        return None
    return OTHER_DATA_WHY


def is_note(name: str) -> bool:
    """README.md, NOTES.rst, LICENSE: prose about the task, shown with answer values masked."""
    stem, _, extension = name.lower().rpartition(".")
    return extension in NOTE_EXTENSIONS or (stem or extension) in NOTE_NAMES


def _names_answer(name: str) -> bool:
    if name.startswith(ANSWER_PREFIXES):
        return True
    return any(is_answer_key(piece) for piece in name.split(".") if piece)


def _is_script(name: str) -> bool:
    if name in BUILD_FILES:
        return True
    stem, dot, extension = name.rpartition(".")
    return bool(dot and stem) and extension in SCRIPT_EXTENSIONS
