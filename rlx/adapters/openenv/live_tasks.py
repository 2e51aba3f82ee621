"""A Space server's Task API tasks as task pages: their refs, which ones its check advertises, and one task drawn
as a rows task is (the rows processors' withholding: only the prompt, ids and plain labels stay, answer-named
fields go at any depth), so a Space's task reads like a dataset row's on the page, in the JSON and over MCP.

A ref is `<split>/<index>`, or `<env>/<split>/<index>` when the server has several Task API environments (as a
rows ref carries its config); a split's name may hold slashes (Harbor's are Hub dataset ids), the index never.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from rlx.adapters.contract import TaskView
from rlx.adapters.rows import sections
from rlx.adapters.rows.processors import RowRef, choose_processor, render_row

MAX_INDEX = 10_000_000


@dataclass(frozen=True)
class SpaceTaskRef:
    env: str
    split: str
    index: int


def advertised(report: dict | None) -> dict[str, dict[str, int | None]]:
    """{env: {split: its number of tasks, None when the server did not say}} from a passed check."""
    if not report or not report.get("ok"):
        return {}
    out = {}
    for env in report.get("environments") or []:
        answer = (report.get("task_api") or {}).get(env) or {}
        out[env] = {s["name"]: s.get("num_tasks") if isinstance(s.get("num_tasks"), int) else None
                    for s in answer.get("splits") or [] if isinstance(s, dict) and s.get("name")
                    and not s.get("error")}
    return out


def make_ref(report: dict | None, env: str, split: str, index: int) -> str:
    several = len((report or {}).get("environments") or []) > 1
    return f"{env}/{split}/{index}" if several else f"{split}/{index}"


def parse_ref(report: dict | None, ref: str) -> SpaceTaskRef | None:
    """The task a ref names when its environment and split are ones the check advertised (and its index within
    the split's advertised size); None otherwise."""
    known = advertised(report)
    head, _, last = (ref or "").rpartition("/")
    if not head or not last.isdigit() or int(last) > MAX_INDEX or not known:
        return None
    if len(known) > 1:
        env, _, split = head.partition("/")
    else:
        env, split = next(iter(known)), head
    size = known.get(env, {}).get(split, -1) if split in known.get(env, {}) else -1
    if size == -1 or (size is not None and int(last) >= size):
        return None
    return SpaceTaskRef(env, split, int(last))


def listed_refs(report: dict | None, cap: int) -> Iterator[tuple[str, SpaceTaskRef]]:
    """Up to `cap` (ref, task) of the advertised tasks, split by split in index order: what a Space's page lists
    and the sitemap names. A split that did not say its size is not listed (its tasks open from /tasks)."""
    given = 0
    for env, splits in advertised(report).items():
        for split, size in splits.items():
            for index in range(min(size or 0, cap - given)):
                given += 1
                yield make_ref(report, env, split, index), SpaceTaskRef(env, split, index)
            if given >= cap:
                return


def withhold_task(task) -> tuple[dict, list[str]]:
    """The task the server answered with what its page withholds taken out (the same processor as task_view), and
    the withheld fields' paths: what the MCP bridge's get_task hands an agent."""
    row = task if isinstance(task, dict) else {"task": task}
    columns = list(row)
    processor, _ = choose_processor(columns, [row])
    clean, withheld = processor.withhold(row, processor.survey(columns, [row]))
    return clean, [w.where for w in withheld]


def task_view(report: dict | None, task_ref: SpaceTaskRef, task) -> TaskView:
    """The task the server answered, as the agent gets it, through the rows processor that claims it."""
    row = task if isinstance(task, dict) else {"task": task}
    columns = list(row)
    processor, _ = choose_processor(columns, [row])
    row_ref = RowRef(task_ref.split, task_ref.index, task_ref.env)
    drawn = render_row(processor, row, row_ref, processor.survey(columns, [row]))
    view = sections.task_view(make_ref(report, task_ref.env, task_ref.split, task_ref.index), drawn)
    if drawn.title == f"Row {task_ref.index}":
        view.title = f"Task {task_ref.index} of {task_ref.split}"
    return view
