"""Which limits held for a run, carried from its sandbox to its record.

The sandbox knows, once it has started, what the host gave it (a cgroup or only per-process limits, a network of
its own or none); the run page and /api/runs/<id> show it as one sentence (provenance["limits"]). The sandbox is
started inside Harbor's Trial, in this same work horse, so the sentence passes through a small file in the trial
folder, which the runner reads while the run goes on.
"""

from __future__ import annotations

from pathlib import Path

NAME = "sandbox-limits.txt"
MAX_CHARS = 600


def write_walls(trial_dir: Path, sentence: str) -> None:
    trial_dir.mkdir(parents=True, exist_ok=True)
    (trial_dir / NAME).write_text(sentence[:MAX_CHARS] + "\n", encoding="utf-8")


def read_walls(trial_dir: Path) -> str | None:
    try:
        with open(trial_dir / NAME, "rb") as handle:
            text = handle.read(MAX_CHARS * 4).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return text[:MAX_CHARS] or None
