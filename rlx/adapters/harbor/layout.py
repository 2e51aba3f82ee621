"""Where a task keeps each part, by format: Harbor's task.toml folders and the older Terminal-Bench 1 ones.

Terminal-Bench 1 (the 1.x registry) keeps the prompt and settings in `task.yaml`, the grader in `run-tests.sh`
(the tests it runs in `tests/`), and its environment at the task root: `Dockerfile` and `docker-compose.yaml`,
where `client` is the agent's container. Its reference solution is `solution.sh` or `solution.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    format: str
    label: str
    config: str  # the file a folder is a task by
    instruction: str  # the pack key of the agent's prompt (for Terminal-Bench 1, a key no file can have)
    graders: tuple[str, ...]
    dockerfile: str
    composes: tuple[str, ...]
    main_service: str
    environment_root: bool = False  # the task folder itself is the environment's build context


HARBOR = Layout(
    format="harbor", label="Harbor (task.toml)", config="task.toml", instruction="instruction.md",
    graders=("tests/test.sh", "tests/test.bat"), dockerfile="environment/Dockerfile",
    composes=("environment/docker-compose.yaml", "environment/docker-compose.yml"), main_service="main",
)
TERMINAL_BENCH_1 = Layout(
    format="terminal-bench-1", label="Terminal-Bench 1 (task.yaml)", config="task.yaml",
    instruction="task.yaml#instruction", graders=("run-tests.sh",), dockerfile="Dockerfile",
    composes=("docker-compose.yaml", "docker-compose.yml"), main_service="client", environment_root=True,
)
LAYOUTS = {layout.format: layout for layout in (HARBOR, TERMINAL_BENCH_1)}
TASK_FILES = (HARBOR.config, TERMINAL_BENCH_1.config)  # a folder holding either is a task


def layout_of(paths) -> Layout:
    """A folder with a task.toml is a Harbor task (even if it also keeps an old task.yaml)."""
    return TERMINAL_BENCH_1 if HARBOR.config not in paths and TERMINAL_BENCH_1.config in paths else HARBOR
