"""Replaying a task's Dockerfile into a local sandbox, using the replay plan the Harbor adapter already reads.

The sandbox has no image: its userland is the worker's own, with /usr read-only. So WORKDIR, ENV and
COPY/ADD from the build context are honoured exactly; RUN steps run inside the sandbox, and one that fails
(typically a package install, which needs a writable /usr and the network) is reported and skipped, because the
worker's userland usually has what it would install. USER is noted: only root is mapped inside.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from rlx.adapters.harbor.dockerfile import DockerfilePlan, analyze_dockerfile


@dataclass
class Replay:
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    actions: list[tuple[str, str, object]] = field(default_factory=list)  # (kind, cwd, payload)
    notes: list[str] = field(default_factory=list)


def plan_for(environment_dir: Path) -> DockerfilePlan | None:
    dockerfile = environment_dir / "Dockerfile"
    if not dockerfile.is_file():
        return None
    return analyze_dockerfile(dockerfile.read_text(encoding="utf-8", errors="replace"))


def replay_of(plan: DockerfilePlan) -> Replay:
    """What to do in the sandbox, in order: ("copy", cwd, (sources, dest)) and ("run", cwd, command)."""
    replay = Replay()
    for keyword, text in plan.steps:
        if keyword == "WORKDIR":
            replay.workdir = posixpath.normpath(posixpath.join(replay.workdir, _expand(text.strip(), replay.env)))
            replay.actions.append(("mkdir", "/", replay.workdir))
        elif keyword == "ENV":
            replay.env.update(_pairs(text))
        elif keyword in ("COPY", "ADD"):
            words = [w for w in shlex.split(text) if not w.startswith("--")]
            if len(words) >= 2:
                *sources, dest = words
                dest = posixpath.join(replay.workdir, _expand(dest, replay.env))
                replay.actions.append(("copy", replay.workdir, (sources, dest)))
        elif keyword == "RUN":
            replay.actions.append(("run", replay.workdir, text))
        elif keyword == "USER":
            replay.notes.append(f"USER {text.strip()} is not replayed: commands run as the sandbox's root.")
    return replay


def _pairs(text: str) -> dict[str, str]:
    """`K=V K2="v 2"` or the legacy `K value with spaces`."""
    text = text.strip()
    try:
        words = shlex.split(text)
    except ValueError:
        return {}
    if words and "=" not in words[0]:
        key, _, value = text.partition(" ")
        return {key: value.strip()}
    return dict(w.split("=", 1) for w in words if "=" in w)


def _expand(text: str, env: dict[str, str]) -> str:
    for key, value in env.items():
        text = text.replace("${" + key + "}", value).replace("$" + key, value)
    return text


async def copy_from_context(environment, sources: list[str], dest: str) -> None:
    """A Dockerfile's COPY/ADD from the task's environment folder (the build context) into the sandbox, through
    the environment's own upload_file / upload_dir; a source outside the context is refused."""
    context = Path(environment.environment_dir).resolve()
    into_dir = dest.endswith("/") or dest.endswith("/.") or len(sources) > 1
    dest = posixpath.normpath(dest)
    for pattern in sources:
        matches = sorted(context.glob(pattern)) if any(c in pattern for c in "*?[") else [context / pattern]
        for source in matches:
            source = source.resolve()
            if not source.is_relative_to(context) or not source.exists():
                raise ValueError(f"COPY {pattern}: not in the task's environment folder.")
            if source.is_dir():
                await environment.upload_dir(source, dest)
            else:
                await environment.upload_file(source, posixpath.join(dest, source.name) if into_dir else dest)
