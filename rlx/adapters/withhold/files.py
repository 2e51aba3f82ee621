"""Which files of a task are withheld, by their task-relative path.

- `solution/` (and `steps/<step>/solution/`, and a legacy top-level `solution.sh`) always: it is the answer.
- Under `tests/` (and `steps/<step>/tests/`), beside the grader:
  - a file or folder whose name names an answer (expected_output.json, answers.txt, gold/, ref_1.out,
    case.expected, rubric.md...), whatever its kind, scripts included (a reference.py is a solution);
  - every other file that is not a script or a known build file: data beside a grader is there to be
    compared with, so it is withheld by default rather than by guessing from its name.
- Grader scripts (test.sh, test_outputs.py) stay visible; their text goes through `mask_grader_script`.
Paths are compared case-insensitively, since a case-insensitive checkout would serve SOLUTION/ too.
"""

from __future__ import annotations

from rlx.adapters.paths import safe_relpath
from rlx.adapters.withhold.keys import is_answer_key

SOLUTION_WHY = "Reference solutions are withheld."
ANSWER_FILE_WHY = "Its name says it holds answers for the grader."
GRADER_DATA_WHY = "Data beside the grader is withheld: it usually holds what the agent's work is compared with."
UNSAFE_WHY = "The path could lead outside the task folder."

SCRIPT_EXTENSIONS = frozenset({
    "sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "go", "rs", "c", "cc", "cpp", "h",
    "hpp", "java", "kt", "scala", "jl", "r", "lua", "bat", "cmd", "ps1", "swift", "cs",
})
BUILD_FILES = frozenset({
    "dockerfile", "containerfile", "makefile", "requirements.txt", "pyproject.toml", "package.json",
    "docker-compose.yaml", "docker-compose.yml", "pytest.ini", "setup.cfg", "tox.ini", "go.mod", "cargo.toml",
})
# Name beginnings that mark answers even where the key rule stays silent ("ref_1.txt": a bare ref is no answer).
ANSWER_PREFIXES = ("ref_", "ref-", "refs_", "refs-")


def withheld_file_reason(relpath: str, is_dir: bool = False) -> str | None:
    """Why the file at `relpath` is withheld, as a sentence; None if it may be shown.

    For a folder (`is_dir`), only the folder as a whole is judged: solution/ and answer-named folders are
    withheld; others are listed, and each file in them is judged on its own.
    """
    clean = safe_relpath(relpath)
    if clean is None:
        return UNSAFE_WHY
    parts = clean.lower().split("/") if clean else []
    if len(parts) >= 2 and parts[0] == "steps":
        parts = parts[2:]
    if not parts:
        return None
    head = parts[0]
    if head in ("solution", "solutions") or head.startswith("solution."):
        return SOLUTION_WHY
    if head != "tests" or len(parts) < 2:
        return None
    inside = parts[1:]
    if any(_names_answer(name) for name in inside):
        return ANSWER_FILE_WHY
    if not is_dir and not _is_script(inside[-1]):
        return GRADER_DATA_WHY
    return None


def _names_answer(name: str) -> bool:
    if name.startswith(ANSWER_PREFIXES):
        return True
    return any(is_answer_key(piece) for piece in name.split(".") if piece)


def _is_script(name: str) -> bool:
    if name in BUILD_FILES:
        return True
    stem, dot, extension = name.rpartition(".")
    return bool(dot and stem) and extension in SCRIPT_EXTENSIONS
