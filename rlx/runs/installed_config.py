"""What an installed agent's run needs from the worker: its Harbor AgentConfig, its model relay, and the folders the
sandbox links in read-only. Nothing here is secret: the key stays in the relay (rlx/runs/model_relay.py), and the
AgentConfig and environment kwargs, which Harbor writes to the trial's config.json, hold paths and a placeholder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rlx.runs import agents
from rlx.runs.bwrap import SANDBOX_PATH
from rlx.runs.egress import Egress, ModelError
from rlx.runs.model_relay import SANDBOX_DIR, ModelRelay

CLASSES = {"mini-swe-agent": "rlx.runs.agent_mini_swe:PreinstalledMiniSweAgent",
           "codex": "rlx.runs.installed_agents:PreinstalledCodex", "pi": "rlx.runs.agent_pi:PreinstalledPi",
           "opencode": "rlx.runs.agent_opencode:PreinstalledOpenCode",
           "claude-code": "rlx.runs.claude_code_agent:PreinstalledClaudeCode",
           "mimo": "rlx.runs.agent_mimo:PreinstalledMiMo"}
# Per-process address space an agent needs whatever the task's memory (the sandbox's cgroup still bounds what it
# uses): OpenCode and MiMo Code are Bun programs, whose JavaScriptCore reserves far more than it touches and aborts
# under 5 GB.
ADDRESS_SPACE_MB = {"opencode": 8192, "mimo": 8192}


@dataclass
class InstalledRun:
    agent: object  # harbor's AgentConfig
    relay: ModelRelay
    read_only: list[list[str]]
    address_space_mb: int | None = None  # a floor under the sandbox's per-process limit (ADDRESS_SPACE_MB)


def installed_run(name: str, model: str, secret: dict, agents_dir: Path, egress: Egress,
                  call_timeout: float) -> InstalledRun:
    """Start the run's relay and say how Harbor is to run `name`; ModelError when it cannot run on this host."""
    from harbor.models.trial.config import AgentConfig

    from rlx.runs.installed_agents import BASE_URL, PLACEHOLDER_KEY

    agent = agents.get(name)
    why = agents.unavailable_reason(agent, agents_dir) if agent else f"{name} is not an agent this server knows."
    if why or name not in CLASSES:
        raise ModelError(why or f"{name} cannot run on this worker.")
    relay = ModelRelay(secret["endpoint"], secret.get("key"), egress, call_timeout=call_timeout).start()
    program = agents.program_path(agent, agents_dir)
    env = {"OPENAI_API_KEY": PLACEHOLDER_KEY, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "LITELLM_OFFLINE_MODE": "true"}  # litellm fetches nothing of its own from the internet
    if program.parent.name == ".bin":  # an npm agent: its .bin folder first, where Harbor's command looks for it
        env["PATH"] = f"{program.parent}:{SANDBOX_PATH}"
    try:
        model_name, base_url = f"openai/{model}", BASE_URL
        if name == "claude-code":  # Anthropic's client: its own base URL form, key variable and quiet switches
            from rlx.runs import claude_code_agent

            model_name, base_url = f"anthropic/{model}", claude_code_agent.BASE_URL
            env.update(claude_code_agent.model_env())
        config = AgentConfig(import_path=CLASSES[name], model_name=model_name, base_url=base_url, env=env,
                             kwargs={"program": str(program)})
    except Exception:
        relay.stop()
        raise
    return InstalledRun(config, relay, [[str(agents_dir), str(agents_dir)], [str(relay.folder), SANDBOX_DIR]],
                        ADDRESS_SPACE_MB.get(name))
