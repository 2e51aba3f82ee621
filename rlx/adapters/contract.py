"""The environment contract: what every format's adapter answers, in plain data.

An adapter answers five questions about an environment: its tasks (an overview, cards, one task as sections of
blocks, its files), what they run in, how they can run (run options, each by a runner, with its own fields),
which other tasks are the same task (aliases), and any extra MCP tools. Pages, JSON and MCP are drawn from these
answers alone, so a new format needs an adapter and no new template.

Keys beginning with `_` are the server's own (a task's folder, a pack hash): `rlx.adapters.public` strips them
before anything leaves the server.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rlx.adapters.withhold import Withheld  # noqa: F401  (part of the contract: what a page says it withheld)

if TYPE_CHECKING:
    from rlx.adapters.env import Env
    from rlx.queue.progress import Progress
    from rlx.sources.base import RepoRecord

BLOCK_KINDS = ("kv", "stats", "markdown", "prompt", "code", "note", "value", "messages", "steps", "links", "disclose", "files",
               "treemap")


@dataclass
class Block:
    """One piece of a section. `data` depends on `kind` (see rlx/adapters/blocks.py for each shape)."""

    kind: str
    data: Any
    title: str | None = None

    def __post_init__(self):
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"unknown block kind {self.kind!r}")


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Block]


@dataclass
class TaskRow:
    """One task in an index: what cards, facets and search read."""

    ref: str
    title: str
    brief: str = ""
    facets: dict[str, Any] = field(default_factory=dict)  # name -> value or list of values
    error: str | None = None  # set when the task could not be read (it still lists)
    extra: dict[str, Any] = field(default_factory=dict)  # adapter's own; `_` keys stay on the server


@dataclass
class TaskView:
    ref: str
    title: str
    sections: list[Section]
    withheld: list[Withheld] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # the glance line: difficulty, category, timeouts...


@dataclass
class FileView:
    """One file of a task, as the viewer shows it."""

    path: str
    text: str | None = None  # None when withheld or binary
    withheld: str | None = None  # the reason, when withheld
    binary: bool = False
    size: int = 0
    truncated: bool = False


@dataclass
class RunField:
    name: str
    label: str
    type: str = "text"  # text, number, choice
    choices: list[str] = field(default_factory=list)
    default: Any = None
    for_agent: str | None = None  # asked only when one of these agents (space-separated) is chosen; hidden otherwise
    unavailable: list[list[str]] = field(default_factory=list)  # [choice, why] shown greyed, never accepted


@dataclass
class RunOption:
    key: str
    label: str
    runner: str
    can_run: bool
    why_not: str | None = None
    fields: list[RunField] = field(default_factory=list)


@dataclass
class Index:
    """An environment's task index as stored: rows plus the overview numbers, one per revision."""

    env_id: str
    adapter: str
    revision: str | None
    version: int
    built_at: str
    complete: bool
    rows: list[TaskRow]
    summary: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class Adapter(ABC):
    """One environment format. Subclass, then `rlx.adapters.register(MyAdapter())`."""

    key: str = ""
    label: str = ""
    index_version: int = 1
    always_confirm: bool = False  # a format known by its layout: even a sure score takes the closer look
    # Why none of this format's tasks runs here, when run_options offers none: the environment page says it where a
    # batch form would be, and each task page where its run form would be.
    cannot_run_why: str = "this site runs only Harbor tasks (a task.toml naming an image and a grader script)."

    @abstractmethod
    def score(self, record: "RepoRecord") -> float:
        """A cheap guess from the listing record alone, 0 (not mine) to 1 (surely mine)."""

    def confirm(self, env: "Env") -> bool:
        """A closer look when the score is unsure (reads a file or two). Default: trust the score."""
        return True

    @abstractmethod
    def build_index(self, env: "Env", progress: "Progress | None" = None) -> Index:
        """Read the environment and return its index (and write whatever else it needs to the store)."""

    @abstractmethod
    def overview(self, env: "Env", index: Index) -> list[Section]:
        """The environment page's summary sections."""

    @abstractmethod
    def task(self, env: "Env", index: Index, ref: str) -> TaskView | None:
        """One task as sections of blocks, answers withheld; None when `ref` is not a task here."""

    def kind_of_index(self, index: Index) -> str | bool:
        """The catalog Kind (rlx/catalog/kinds.py) this index shows the dataset to be, or False when it found no
        task of this format. Default: the index's own `kind`, else this adapter's key when it found tasks."""
        return index.summary.get("kind") or (self.key if index.rows else False)

    def has_task(self, env: "Env", index: Index, ref: str) -> bool:
        """Whether `ref` names a task here (a rows dataset has tasks past the rows its index lists)."""
        return any(row.ref == ref for row in index.rows)

    def neighbours(self, env: "Env", index: Index, ref: str) -> tuple[str | None, str | None, int, int]:
        """(previous ref, next ref, position counted from 1, how many) for a task page's prev/next links."""
        refs = [row.ref for row in index.rows]
        if ref not in refs:
            return None, None, 0, len(refs)
        i = refs.index(ref)
        return (refs[i - 1] if i > 0 else None), (refs[i + 1] if i + 1 < len(refs) else None), i + 1, len(refs)

    def random_ref(self, env: "Env", index: Index, near: str | None, pick) -> str | None:
        """A task picked with `pick(n) -> 0..n-1`; an adapter may keep to `near`'s part (a rows split)."""
        return index.rows[pick(len(index.rows))].ref if index.rows else None

    def search_parts(self, index: Index) -> list[tuple[str, str]]:
        """Parts of the environment (a rows dataset's splits) whose every task the source can search, past the
        tasks the index lists, as (part, label). Default: none."""
        return []

    def search_part(self, env: "Env", index: Index, part: str, q: str, offset: int,
                    length: int) -> tuple[list[TaskRow], int] | None:
        """A page of one part's tasks matching `q`, found by the source (answers withheld), and how many match;
        None when `part` is not one of `search_parts`."""
        return None

    def rollout_files(self, index: Index) -> list[dict]:
        """Files of rollouts, eval results or agent sessions found in the repository (never tasks): [{path, format,
        label, why, traces: [{n, title, reward, model, task}], problem}]. Default: none."""
        return []

    def rollout_trace(self, env: "Env", index: Index, n: int, i: int) -> TaskView | None:
        """Trace `i` of rollout file `n` as sections (the grader's side withheld), or None when there is none."""
        return None

    def list_folder(self, env: "Env", index: Index, ref: str, path: str) -> list[dict] | None:
        """One folder of a task: [{path, type, size, withheld}], or None when there is no such folder."""
        return None

    def read_file(self, env: "Env", index: Index, ref: str, path: str) -> FileView | None:
        """One file of a task, or None when there is no such file."""
        return None

    def run_options(self, env: "Env", index: Index, ref: str) -> list[RunOption]:
        return []

    def aliases(self, env: "Env", index: Index, ref: str) -> list[tuple[str, str]]:
        """Other (environment id, ref) pairs that are the same task: their rollouts are shared."""
        return []

    def find_ref(self, index: Index, name: str) -> str | None:
        """The ref of the task another dataset calls `name` (a release's instance id), for aliases. Default: a
        ref that is one."""
        return name if any(row.ref == name for row in index.rows) else None

    def mcp_tools(self, env: "Env") -> list[dict]:
        """Extra MCP tools for this format: [{"name", "description", "inputSchema"}], answered by call_mcp_tool.
        A name the built-in tools use (describe, list_tasks, ...) is left out."""
        return []

    def call_mcp_tool(self, env: "Env", index: Index, name: str, arguments: dict) -> str:
        """One of `mcp_tools`, answered as text with answers withheld. Raise ValueError with a sentence for
        arguments the caller can fix: it reaches the client as a tool error."""
        raise ValueError(f"{name} is not answered by this adapter.")
