"""Which files of a dataset hold rows, and which config and split each belongs to.

The README card's `configs` (each with `data_files`, as the Hub reads them) wins; otherwise splits come from
file and folder names the way the Hub names them (train, test, validation...), and everything else is "train".
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from rlx.sources.base import FileEntry

SUFFIXES = (".parquet", ".jsonl", ".ndjson", ".json", ".csv")
MAX_FILES = 2000  # data files considered per dataset
SPLIT_WORDS = {
    "train": "train", "training": "train", "test": "test", "testing": "test", "eval": "test",
    "validation": "validation", "valid": "validation", "val": "validation", "dev": "validation",
}
_PIECES = re.compile(r"[^A-Za-z0-9]+")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Split:
    config: str
    name: str
    files: list[str] = field(default_factory=list)


def data_format(path: str) -> str | None:
    """'parquet', 'jsonl', 'json' or 'csv' (a .gz of any of them included), 'archive' for a tar, tar.gz, tgz or
    zip (read as its task folders, archive_rows.py), or None for other files."""
    if path.lower().endswith((".tar", ".tar.gz", ".tgz", ".zip")):
        return "archive"
    name = path.lower().removesuffix(".gz")
    if name.endswith(".ndjson"):
        return "jsonl"
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return suffix[1:]
    return None


def is_data_file(path: str) -> bool:
    parts = path.split("/")
    return data_format(path) is not None and not any(p.startswith((".", "_")) for p in parts) \
        and parts[-1].lower() not in ("dataset_info.json", "dataset_infos.json", "state.json", "registry.json")


def rollout_files(entries: list[FileEntry]) -> dict[str, str]:
    """Files of rollouts, not tasks, each with why: `<name>_rollouts.jsonl` (or -trajectories) beside `<name>.jsonl`
    (NeMo Gym's example_rollouts.jsonl), a file named rollouts or trajectories, SWE-agent `.traj` files, Inspect
    `.eval` logs and Harbor trials' trajectories. They are named on the dataset's page and never become tasks."""
    files = [e.path for e in entries if not e.is_dir]
    stems = {_stem(p) for p in files if is_data_file(p)}
    out = {path: "a Harbor trial (one agent's run of a task), not a task" for path in harbor_trials(files)}
    for path in files[:MAX_FILES * 5]:
        if path.endswith(".traj"):
            out[path] = "a SWE-agent trajectory (one agent's run), not a task"
        elif path.lower().endswith(".eval"):
            out[path] = "an Inspect eval log (runs of its samples), not tasks"
        elif is_data_file(path):
            match = _ROLLOUT_NAME.search(_stem(path).rsplit("/", 1)[-1])
            if match and (not match.group(1) or _stem(path)[:-len(match.group(0))] in stems):
                out[path] = "rollouts of the tasks beside it, not tasks"
    return out


def harbor_trials(files: list[str]) -> dict[str, str]:
    """Harbor trial folders: {the trial's agent/trajectory.json: the folder ("" at the root)}, where the folder
    also holds the trial's result.json. Every file of such a folder belongs to the run, none is a task."""
    present = set(files)
    out = {}
    for path in files[:MAX_FILES * 5]:
        if path == "agent/trajectory.json" or path.endswith("/agent/trajectory.json"):
            folder = path[: -len("agent/trajectory.json")]
            if folder + "result.json" in present:
                out[path] = folder
    return out


def _stem(path: str) -> str:
    name = path.lower().removesuffix(".gz")
    return name.rsplit(".", 1)[0] if "." in name.rsplit("/", 1)[-1] else name


_ROLLOUT_NAME = re.compile(r"(^|[_-])(rollouts?|trajector(?:y|ies))$")


def split_of(path: str) -> str:
    """The split a file's name or folder names: the last split word in its path, else train."""
    words = [w.lower() for w in _PIECES.split(path.lower().removesuffix(".gz")) if w]
    for word in reversed(words):
        if word in SPLIT_WORDS:
            return SPLIT_WORDS[word]
    return "train"


def find_splits(entries: list[FileEntry], card: dict) -> list[Split]:
    """The dataset's splits, each with its files in reading order."""
    rollouts = rollout_files(entries)
    trials = tuple(harbor_trials([e.path for e in entries if not e.is_dir]).values())
    paths = sorted(e.path for e in entries if not e.is_dir and is_data_file(e.path) and e.path not in rollouts
                   and not (trials and e.path.startswith(trials)))[:MAX_FILES]
    configured = _from_card(paths, card)
    if configured:
        return configured
    splits: dict[str, Split] = {}
    for path in paths:
        name = split_of(path)
        splits.setdefault(name, Split("default", name)).files.append(path)
    order = {"train": 0, "validation": 1, "test": 2}
    return sorted(splits.values(), key=lambda s: (order.get(s.name, 3), s.name))


def _from_card(paths: list[str], card: dict) -> list[Split]:
    configs = card.get("configs") if isinstance(card, dict) else None
    if not isinstance(configs, list):
        return []
    out = []
    for config in configs[:50]:
        if not isinstance(config, dict):
            continue
        name = _safe(config.get("config_name") or "default")
        data_files = config.get("data_files")
        if isinstance(data_files, (str, list)) and not (isinstance(data_files, list) and data_files
                                                         and isinstance(data_files[0], dict)):
            data_files = [{"split": "train", "path": data_files}]
        for item in data_files if isinstance(data_files, list) else []:
            if not isinstance(item, dict):
                continue
            patterns = item.get("path")
            patterns = [patterns] if isinstance(patterns, str) else [p for p in patterns or [] if isinstance(p, str)]
            files = [p for p in paths if any(fnmatch.fnmatch(p, pattern) for pattern in patterns)]
            if files:
                out.append(Split(name, _safe(item.get("split") or "train"), files))
    return out


def _safe(name) -> str:
    """A config or split name usable in a task's ref."""
    text = _SAFE.sub("-", str(name)).strip("-.")[:100]
    return text or "default"
