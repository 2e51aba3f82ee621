"""The wall between the agent and the verifier's reward: before the last verifier of a run starts, every process
the agent left running in the sandbox is killed. A process left behind (by the agent, or by a hostile
"solution") could otherwise rewrite /logs/verifier/reward.txt after the verifier wrote it, or answer on a port
the verifier calls (a judge's), and the reward read would be its own.

Only before the last verifier: in a multi-step task the agent works again after an earlier step's verifier, and
keeps its long-lived processes (terminus-2's tmux server) across steps. Local sandboxes only: an HF Sandbox's
processes are upstream's (rlx/runs/hf_sandbox_env.py); its hook is a no-op there.
"""

from __future__ import annotations

PASSES = 20  # rounds of kill: a process forking while it is killed leaves children for the next round


def strays_script(init_pid: int) -> str:
    """A bash script (builtins only: nothing it starts would be killed with the rest) that kills every process of
    the pid namespace but its pid 1, the sandbox's sleeping init `init_pid`, and itself; prints how many it killed."""
    return (f"killed=0; for round in $(seq {PASSES}); do left=0; for d in /proc/[0-9]*; do p=${{d#/proc/}}; "
            f"case $p in 1|{int(init_pid)}|$$) ;; *) kill -9 $p 2>/dev/null && left=$((left + 1)) ;; esac; done; "
            "killed=$((killed + left)); [ $left -eq 0 ] && break; done; echo $killed")


def attach(trial, environment) -> None:
    """Kill the agent's leftovers before the run's last verifier (the first hook on that event, so the judge's
    forwarder, started by a later hook, is not among them)."""
    from harbor.trial.hooks import TrialEvent

    steps = len(getattr(trial.task.config, "steps", None) or []) or 1
    seen = {"verifications": 0}

    async def before_verifier(_event) -> None:
        seen["verifications"] += 1
        end = getattr(environment, "end_strays", None)
        if seen["verifications"] >= steps and end is not None:
            await end()

    trial.add_hook(TrialEvent.VERIFICATION_START, before_verifier)
