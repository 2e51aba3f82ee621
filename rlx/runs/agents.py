"""The agents a run can use, and whether each can run on this host: one list for the run form, batches and the job.

An agent is offered where it can actually run. The three of Harbor's own (oracle, nop, terminus-2) run in the
worker's process and need nothing installed. The others are Harbor's installed agents, which would normally
install themselves inside the sandbox from the internet at run time; here they must have been installed ahead of
time, pinned, into RLX_AGENTS_DIR by `deploy/agents/install.sh` (mini-swe-agent's venv on the system Python,
the npm agents from deploy/agents/package-lock.json), and a run only links that folder in. An agent is available
when its program (and the runtime it brings, as Pi brings Node.js 22) is in that folder, what it needs to start
is on the host, and this app knows how to drive it; otherwise the form shows it greyed with the sentence
`unavailable_reason` returns. Installed agents run in the local sandbox only: an HF Sandbox would have to fetch them
at run time. One agent is for some tasks only: MiMo Code (`mimo`), Xiaomi's own harness for its MiMo release, runs
the release's tasks (a Harbor conversion's task naming its `mimo_instance_id`) beside the conversion's own runners,
and is greyed with `task_reason`'s sentence on every other task and in batches.
"""

from __future__ import annotations

import os
import platform
import shutil
from dataclasses import dataclass
from pathlib import Path

LOCAL, HF = "local", "hf"  # rlx/runs/sandboxes.py's names for the two places a run goes
CHAT, RESPONSES = "chat completions", "the Responses API"


@dataclass(frozen=True)
class Agent:
    name: str
    summary: str  # one line for the form and docs
    needs_model: bool = False
    api: str | None = None  # what it asks the model endpoint for
    program: str | None = None  # path under RLX_AGENTS_DIR that must be there (None: nothing to install)
    host_program: str | None = None  # a program the sandbox takes from the host's /usr (node for npm agents)
    runtime: str | None = None  # a program under RLX_AGENTS_DIR it runs on (Pi's pinned Node.js 22)
    driven: bool = True  # whether this app knows how to run it (its model relay, its trajectory)
    why_not_driven: str = ""
    sandboxes: tuple[str, ...] = (LOCAL, HF)
    machine: str | None = None  # the only CPU (platform.machine()) it has a build for; None: any
    for_metadata: str | None = None  # it runs only tasks whose metadata has this key (None: every task)
    why_not_this_task: str = ""

    @property
    def installed_kind(self) -> bool:
        return self.program is not None


AGENTS: tuple[Agent, ...] = (
    Agent("oracle", "runs the task's reference solution (the upper bound)"),
    Agent("nop", "does nothing (the verifier's baseline)"),
    Agent("terminus-2", "Harbor's own agent: a model typing into a tmux terminal", needs_model=True, api=CHAT),
    Agent("mini-swe-agent", "a small agent that runs one bash command per model answer", needs_model=True,
          api=CHAT, program="mini-swe-agent/bin/mini-swe-agent", sandboxes=(LOCAL,)),
    Agent("codex", "OpenAI's Codex CLI", needs_model=True, api=RESPONSES,
          program="npm/node_modules/.bin/codex", host_program="node", sandboxes=(LOCAL,)),
    Agent("opencode", "the OpenCode CLI", needs_model=True, api=CHAT, program="npm/node_modules/.bin/opencode",
          sandboxes=(LOCAL,)),  # a native program: no node at run time
    Agent("pi", "the Pi coding agent", needs_model=True, api=CHAT, program="npm/node_modules/.bin/pi",
          runtime="npm/node_modules/.bin/node", sandboxes=(LOCAL,)),
    # Claude Code asks for Anthropic's Messages API; the run's relay answers it from the endpoint's chat
    # completions (rlx/runs/anthropic_bridge.py). Its npm build is a native program: no node needed.
    Agent("claude-code", "Anthropic's Claude Code CLI", needs_model=True, api=CHAT,
          program="npm/node_modules/.bin/claude", sandboxes=(LOCAL,)),
    # MiMo Code is an OpenCode descendant shipped as one native program (rlx/runs/agent_mimo.py).
    Agent("mimo", "MiMo Code, the harness Xiaomi released with MiMo (MiMo's tasks only)", needs_model=True,
          api=CHAT, program="mimo/node_modules/@mimo-ai/mimocode-linux-x64/bin/mimo", sandboxes=(LOCAL,),
          machine="x86_64", for_metadata="mimo_instance_id",
          why_not_this_task=("mimo is the harness of the MiMo release, so it runs MiMo tasks only (a task whose "
                             "task.toml names a mimo_instance_id); this task runs on the other agents.")),
)
BY_NAME = {a.name: a for a in AGENTS}
NAMES = tuple(BY_NAME)
MODEL_AGENTS = tuple(a.name for a in AGENTS if a.needs_model)


def get(name: str) -> Agent | None:
    return BY_NAME.get(name)


def needs_model(name: str) -> bool:
    agent = BY_NAME.get(name)
    return bool(agent and agent.needs_model)


def program_path(agent: Agent, agents_dir: Path) -> Path | None:
    return agents_dir / agent.program if agent.program else None


def unavailable_reason(agent: Agent, agents_dir: Path, sandbox: str = LOCAL) -> str | None:
    """None when `agent` can run in `sandbox` on this host; else why not, in one sentence."""
    if sandbox not in agent.sandboxes:
        return (f"{agent.name} is installed ahead of time on this server's workers, and an HF Sandbox would have "
                "to fetch it from the internet at run time; it runs in this machine's sandbox.")
    if not agent.driven:
        return agent.why_not_driven
    if agent.machine and platform.machine() != agent.machine:
        return (f"{agent.name} is published for {agent.machine} Linux only, and this host is "
                f"{platform.machine() or 'another kind'}.")
    program = program_path(agent, agents_dir)
    needed = [program] + ([agents_dir / agent.runtime] if agent.runtime else [])
    if program is not None and not all(os.access(p, os.X_OK) for p in needed):
        return f"{agent.name} is not installed on this host (deploy/agents/install.sh installs it, pinned)."
    if agent.host_program and not shutil.which(agent.host_program, path="/usr/bin:/bin"):
        return f"{agent.name} needs {agent.host_program} in /usr/bin, which this host lacks."
    return None


def task_reason(agent: Agent, metadata: dict | None) -> str | None:
    """None when `agent` runs tasks with this metadata (a task.toml's [metadata]); else why not, in one sentence.
    A batch has no one task's metadata: pass None, and a task-bound agent is refused."""
    if agent.for_metadata and not (metadata or {}).get(agent.for_metadata):
        return agent.why_not_this_task
    return None


def availability(agents_dir: Path, sandbox: str = LOCAL) -> dict[str, str | None]:
    """Every agent's name, in the form's order, with None (it can run) or the reason it cannot."""
    return {a.name: unavailable_reason(a, agents_dir, sandbox) for a in AGENTS}


def runnable(agents_dir: Path, sandbox: str = LOCAL) -> list[str]:
    return [name for name, why in availability(agents_dir, sandbox).items() if why is None]
