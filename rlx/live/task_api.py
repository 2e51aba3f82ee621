"""OpenEnv's Task API on a Space's server, read for people and agents: splits, a page of tasks, one task. Every
task comes back with its answer-like fields taken out (rlx.adapters.withhold.keys), and says how many were."""

from __future__ import annotations

from rlx.adapters.openenv.live_tasks import withhold_task
from rlx.adapters.withhold.keys import strip_answers
from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError

MAX_PAGE = 50
MAX_INDEX = 10_000_000


def known_environment(report: dict | None, env: str) -> str:
    """`env` when the server's last check listed it; LiveError otherwise (nothing else is ever called)."""
    environments = (report or {}).get("environments") or []
    if env not in environments:
        raise LiveError(f"{str(env)[:80]!r} is not one of this server's Task API environments "
                        f"({', '.join(environments) or 'it lists none'}).", "refused")
    return env


def list_splits(client: SpaceClient, env: str) -> list:
    splits = client.get_json(f"/{env}/splits", f"The Task API's splits of {env}")
    if not isinstance(splits, list):
        raise LiveError("The Task API's splits are not a list.", "not_json")
    return strip_answers(splits[:100])[0]


def list_tasks(client: SpaceClient, env: str, split: str, start: int = 0, count: int = 20) -> dict:
    """Tasks start..start+count of a split: {"tasks", "total", "withheld"}."""
    if not 0 <= start <= MAX_INDEX or not 1 <= count <= MAX_PAGE:
        raise LiveError(f"Ask for 1 to {MAX_PAGE} tasks from an index between 0 and {MAX_INDEX:,}.", "refused")
    answer = client.post_json(f"/{env}/tasks", {"split": _split(split)}, f"The tasks of {split[:80]}")
    tasks = answer.get("tasks") if isinstance(answer, dict) else None
    if not isinstance(tasks, list):
        raise LiveError("The Task API answered its tasks without a list.", "not_json")
    page, withheld = [], 0
    for task in tasks[start:start + count]:  # each withheld as its own task page withholds it
        clean, taken = withhold_task(task)
        page.append(clean)
        withheld += len(taken)
    return {"tasks": page, "total": len(tasks), "withheld": withheld}


def get_task(client: SpaceClient, env: str, split: str, index: int) -> dict:
    """One task: {"task", "withheld": [field paths taken out]}, withheld as its task page withholds it."""
    clean, withheld = withhold_task(fetch_task(client, env, split, index))
    return {"task": clean, "withheld": withheld}


def fetch_task(client: SpaceClient, env: str, split: str, index: int):
    """One task as the server sent it, answers and all: only for code that withholds before anything leaves
    (get_task here, a Space's task page through the rows withholding: rlx.adapters.openenv.live_tasks)."""
    if not 0 <= index <= MAX_INDEX:
        raise LiveError(f"A task index is between 0 and {MAX_INDEX:,}.", "refused")
    answer = client.post_json(f"/{env}/task", {"split": _split(split), "index": index},
                              f"Task {index} of {split[:80]}")
    task = answer.get("task") if isinstance(answer, dict) else None
    if task is None:
        raise LiveError("The Task API answered without a task.", "not_json")
    return task


def _split(split: str) -> str:
    text = str(split or "")
    if not text or len(text) > 200:
        raise LiveError("Name a split (at most 200 characters).", "refused")
    return text
