"""Folders laid out like the Hub, made on the fly: a Harbor dataset of any number of tiny tasks."""

from pathlib import Path

README = "---\ntags:\n- harbor\n---\n\n# {name}\n\n{n} generated tasks.\n"


def make_harbor_dataset(root: Path, repo_id: str, tasks: int) -> Path:
    """`root/datasets/<repo_id>` with `tasks` minimal Harbor tasks (task.toml, instruction.md, tests/test.sh)."""
    repo = root / "datasets" / repo_id
    repo.mkdir(parents=True)
    (repo / "README.md").write_text(README.format(name=repo_id, n=tasks))
    for i in range(tasks):
        task = repo / "tasks" / f"task-{i:05d}"
        (task / "tests").mkdir(parents=True)
        (task / "task.toml").write_text(f'[metadata]\ndifficulty = "easy"\n\n[verifier]\ntimeout_sec = {60 + i % 7}\n')
        (task / "instruction.md").write_text(f"Write the number {i} to /app/out.txt.\n")
        (task / "tests" / "test.sh").write_text("#!/bin/sh\ntest -s /app/out.txt\n")
    return repo
