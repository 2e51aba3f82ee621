"""Read a Harbor task.toml (schema as of harbor 0.25.0) into plain dataclasses.

Reading follows Harbor where a visitor would notice a difference:
- Legacy fields are migrated as Harbor does (`version`, `memory`, `storage`, `allow_internet`), and each
  migration is described in one sentence in `TaskConfig.legacy`.
- Keys Harbor does not define are kept, at any depth, in `TaskConfig.extra` under their dotted path
  ("agent.setup_timeout_sec"), so pages can still show them.
- A value of the wrong type is an error (`TaskTomlError`), because Harbor refuses such a file too; numeric
  strings ("2") are read as numbers, as Harbor's lax validation does. Every error is one sentence that says
  where the problem is.

This module only reads. Free-form parts (metadata, extra, env tables) may hold answers: pass them through
`rlx.adapters.withhold.strip_answers` before showing them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from rlx.adapters.harbor.tomlvalues import (
    NETWORK_MODES,
    TaskTomlError,
    describe,
    keep_unknown,
    read_choice,
    read_env_table,
    read_integer,
    read_network_mode,
    read_list,
    read_number,
    read_size_mb,
    read_table,
    read_text,
    read_text_list,
    read_user,
    syntax_sentence,
)

__all__ = [
    "AgentConfig", "EnvironmentConfig", "TaskConfig", "TaskIdentity", "TaskTomlError", "VerifierConfig",
    "parse_task_toml", "runnable_here",
]

DEFAULT_TIMEOUT_SEC = 600.0


@dataclass
class TaskIdentity:
    name: str
    version: str | None = None
    description: str | None = None
    keywords: list[str] = field(default_factory=list)
    authors: list[dict] = field(default_factory=list)


@dataclass
class EnvironmentConfig:
    """[environment] (and [verifier.environment]); None means "not declared, Harbor's default applies"."""

    docker_image: str | None = None
    os: str = "linux"
    cpus: float | None = None
    memory_mb: int | None = None
    storage_mb: int | None = None
    gpus: int = 0
    gpu_types: list[str] = field(default_factory=list)
    tpu: dict | None = None
    network_mode: str = "public"
    allowed_hosts: list[str] = field(default_factory=list)
    workdir: str | None = None
    build_timeout_sec: float = DEFAULT_TIMEOUT_SEC
    env: dict[str, str] = field(default_factory=dict)
    healthcheck: dict | None = None
    mcp_servers: list[dict] = field(default_factory=list)
    skills_dir: str | None = None


@dataclass
class VerifierConfig:
    timeout_sec: float = DEFAULT_TIMEOUT_SEC
    env: dict[str, str] = field(default_factory=dict)
    user: str | int | None = None
    environment_mode: str = "shared"
    environment: EnvironmentConfig | None = None
    network_mode: str | None = None
    allowed_hosts: list[str] | None = None
    collect: list[dict] = field(default_factory=list)


@dataclass
class AgentConfig:
    timeout_sec: float | None = None
    user: str | int | None = None
    network_mode: str | None = None
    allowed_hosts: list[str] | None = None


@dataclass
class TaskConfig:
    schema_version: str | None = None
    source: str | None = None
    task: TaskIdentity | None = None
    metadata: dict = field(default_factory=dict)
    verifier: VerifierConfig = field(default_factory=VerifierConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    environment: EnvironmentConfig = field(default_factory=EnvironmentConfig)
    solution_env: dict[str, str] = field(default_factory=dict)
    steps: list[dict] = field(default_factory=list)
    multi_step_reward_strategy: str = "mean"
    artifacts: list = field(default_factory=list)
    legacy: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_multi_step(self) -> bool:
        return bool(self.steps)

    def effective_network(self, phase: str) -> str:
        """The network mode in force while `phase` ("agent" or "verifier") runs; a per-phase setting wins."""
        override, base = self._phase_network(phase)
        return override.network_mode or base.network_mode

    def effective_allowed_hosts(self, phase: str) -> list[str]:
        override, base = self._phase_network(phase)
        return list(override.allowed_hosts if override.allowed_hosts is not None else base.allowed_hosts)

    def _phase_network(self, phase: str) -> tuple[AgentConfig | VerifierConfig, EnvironmentConfig]:
        if phase == "agent":
            return self.agent, self.environment
        if phase == "verifier":
            return self.verifier, self.verifier.environment or self.environment
        raise ValueError(f"unknown phase {phase!r}: expected 'agent' or 'verifier'")


def parse_task_toml(text: str) -> TaskConfig:
    """Parse task.toml text; raises TaskTomlError with one clear sentence."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise TaskTomlError(syntax_sentence(str(error), text)) from None
    config = TaskConfig()
    keep_unknown(data, _TOP_KEYS, "", config.extra)
    config.schema_version = _read_schema_version(data, config)
    config.source = read_text(data, "source", "")
    if "task" in data:
        config.task = _read_identity(read_table(data["task"], "task"), config.extra)
    config.metadata = read_table(data.get("metadata"), "metadata")
    config.verifier = _read_verifier(read_table(data.get("verifier"), "verifier"), config)
    config.agent = _read_agent(read_table(data.get("agent"), "agent"), config.extra)
    config.environment = _read_environment(read_table(data.get("environment"), "environment"), "environment", config)
    solution = read_table(data.get("solution"), "solution")
    keep_unknown(solution, {"env"}, "solution", config.extra)
    config.solution_env = read_env_table(solution, "solution")
    config.steps = _read_steps(data.get("steps"), config.extra)
    config.multi_step_reward_strategy = read_choice(data, "multi_step_reward_strategy", "", ("mean", "final")) or "mean"
    config.artifacts = _read_artifacts(data.get("artifacts"), "artifacts", config.extra)
    return config


def runnable_here(config: TaskConfig) -> tuple[bool, list[str]]:
    """Can the local sandbox (Linux, no GPUs or TPUs, network all-or-nothing) run this task faithfully?"""
    reasons = _hardware_reasons(config.environment, "It")
    verifier = config.verifier
    if verifier.environment is not None:
        reasons += _hardware_reasons(verifier.environment, "Its verifier")
    if verifier.environment_mode == "separate" and not (verifier.environment and verifier.environment.docker_image):
        reasons.append("Its verifier runs in a separate container that declares no image of its own.")
    allowlisted = [phase for phase in ("agent", "verifier") if config.effective_network(phase) == "allowlist"]
    if allowlisted:
        who = " and ".join(allowlisted)
        reasons.append(
            f"The {who} network is limited to an allowlist, which the local sandbox cannot enforce "
            "(it gives full network or none)."
        )
    return not reasons, reasons


def _hardware_reasons(env: EnvironmentConfig, who: str) -> list[str]:
    reasons = []
    if env.os == "windows":
        reasons.append(f"{who} needs a Windows machine; the local sandbox runs Linux.")
    if env.gpus > 0 or env.gpu_types:
        kinds = f" ({', '.join(env.gpu_types)})" if env.gpu_types else ""
        count = f"{env.gpus} GPU{'s' if env.gpus != 1 else ''}" if env.gpus > 0 else "a GPU"
        reasons.append(f"{who} asks for {count}{kinds}; the local sandbox has none.")
    if env.tpu is not None:
        reasons.append(f"{who} asks for a TPU; the local sandbox has none.")
    return reasons


# --- sections -----------------------------------------------------------------------------------------

_TOP_KEYS = {
    "schema_version", "version", "source", "task", "metadata", "verifier", "agent", "environment",
    "solution", "steps", "multi_step_reward_strategy", "artifacts",
}
_ENVIRONMENT_KEYS = {
    "build_timeout_sec", "docker_image", "os", "cpus", "memory_mb", "storage_mb", "gpus", "gpu_types", "tpu",
    "network_mode", "allowed_hosts", "env", "workdir", "skills_dir", "healthcheck", "mcp_servers",
    "memory", "storage", "allow_internet",
}
_HEALTHCHECK_DEFAULTS = {
    "interval_sec": 5.0, "timeout_sec": 30.0, "start_period_sec": 0.0, "start_interval_sec": 5.0, "retries": 3,
}
_STEP_KEYS = {"name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"}


def _read_schema_version(data: dict, config: TaskConfig) -> str | None:
    declared = read_text(data, "schema_version", "")
    legacy = read_text(data, "version", "")
    if legacy is None:
        return declared
    if declared is not None:
        config.extra["version"] = legacy
        config.legacy.append(f'version = "{legacy}" ignored: schema_version is set')
        return declared
    config.legacy.append(f'version = "{legacy}" read as schema_version = "{legacy}"')
    return legacy


def _read_identity(table: dict, extra: dict) -> TaskIdentity:
    keep_unknown(table, {"name", "version", "description", "keywords", "authors"}, "task", extra)
    name = read_text(table, "name", "task")
    if not name:
        raise TaskTomlError('task.toml [task] needs a name such as "org/task-name".')
    authors = []
    for index, author in enumerate(read_list(table, "authors", "task")):
        where = f"task.authors[{index}]"
        author = read_table(author, where)
        keep_unknown(author, {"name", "email"}, where, extra)
        authors.append({"name": read_text(author, "name", where), "email": read_text(author, "email", where)})
    return TaskIdentity(
        name=name,
        version=read_text(table, "version", "task"),
        description=read_text(table, "description", "task"),
        keywords=read_text_list(table, "keywords", "task") or [],
        authors=authors,
    )


def _read_verifier(table: dict, config: TaskConfig) -> VerifierConfig:
    known = {"timeout_sec", "env", "user", "environment_mode", "environment", "network_mode", "allowed_hosts",
             "collect"}
    keep_unknown(table, known, "verifier", config.extra)
    verifier = VerifierConfig(
        timeout_sec=read_number(table, "timeout_sec", "verifier", DEFAULT_TIMEOUT_SEC),
        env=read_env_table(table, "verifier"),
        user=read_user(table, "verifier"),
        network_mode=read_choice(table, "network_mode", "verifier", NETWORK_MODES),
        allowed_hosts=read_text_list(table, "allowed_hosts", "verifier"),
        collect=_read_collect(table, config.extra),
    )
    mode = read_choice(table, "environment_mode", "verifier", ("shared", "separate"))
    if "environment" in table:
        if mode == "shared":
            raise TaskTomlError(
                'task.toml [verifier] sets environment_mode = "shared" but also has a [verifier.environment] '
                "table, which needs a separate container."
            )
        section = read_table(table["environment"], "verifier.environment")
        verifier.environment = _read_environment(section, "verifier.environment", config)
        mode = "separate"
    verifier.environment_mode = mode or "shared"
    return verifier


def _read_collect(table: dict, extra: dict) -> list[dict]:
    commands = []
    for index, item in enumerate(read_list(table, "collect", "verifier")):
        where = f"verifier.collect[{index}]"
        item = read_table(item, where)
        keep_unknown(item, {"command", "service", "timeout_sec", "user"}, where, extra)
        command = read_text(item, "command", where)
        if not command:
            raise TaskTomlError(f"task.toml [{where}] needs a command.")
        commands.append({
            "command": command,
            "service": read_text(item, "service", where) or "main",
            "timeout_sec": read_number(item, "timeout_sec", where, 60.0),
            "user": read_user(item, where),
        })
    return commands


def _read_agent(table: dict, extra: dict) -> AgentConfig:
    keep_unknown(table, {"timeout_sec", "user", "network_mode", "allowed_hosts"}, "agent", extra)
    return AgentConfig(
        timeout_sec=read_number(table, "timeout_sec", "agent"),
        user=read_user(table, "agent"),
        network_mode=read_choice(table, "network_mode", "agent", NETWORK_MODES),
        allowed_hosts=read_text_list(table, "allowed_hosts", "agent"),
    )


def _read_environment(table: dict, where: str, config: TaskConfig) -> EnvironmentConfig:
    keep_unknown(table, _ENVIRONMENT_KEYS, where, config.extra)
    tpu = None
    if "tpu" in table:
        tpu = read_table(table["tpu"], f"{where}.tpu")
        keep_unknown(tpu, {"type", "topology"}, f"{where}.tpu", config.extra)
        tpu = {"type": read_text(tpu, "type", f"{where}.tpu"), "topology": read_text(tpu, "topology", f"{where}.tpu")}
    return EnvironmentConfig(
        docker_image=read_text(table, "docker_image", where),
        os=read_choice(table, "os", where, ("linux", "windows")) or "linux",
        cpus=read_number(table, "cpus", where),
        memory_mb=read_size_mb(table, "memory", where, config.legacy),
        storage_mb=read_size_mb(table, "storage", where, config.legacy),
        gpus=read_integer(table, "gpus", where, 0),
        gpu_types=read_text_list(table, "gpu_types", where) or [],
        tpu=tpu,
        network_mode=read_network_mode(table, where, config.legacy),
        allowed_hosts=read_text_list(table, "allowed_hosts", where) or [],
        workdir=read_text(table, "workdir", where),
        build_timeout_sec=read_number(table, "build_timeout_sec", where, DEFAULT_TIMEOUT_SEC),
        env=read_env_table(table, where),
        healthcheck=_read_healthcheck(table.get("healthcheck"), f"{where}.healthcheck", config.extra),
        mcp_servers=_read_mcp_servers(table, where, config.extra),
        skills_dir=read_text(table, "skills_dir", where),
    )


def _read_healthcheck(value: Any, where: str, extra: dict) -> dict | None:
    if value is None:
        return None
    table = read_table(value, where)
    keep_unknown(table, {"command", *_HEALTHCHECK_DEFAULTS}, where, extra)
    command = read_text(table, "command", where)
    if not command:
        raise TaskTomlError(f"task.toml [{where}] needs a command.")
    check = {"command": command}
    for key, default in _HEALTHCHECK_DEFAULTS.items():
        reader = read_integer if isinstance(default, int) else read_number
        check[key] = reader(table, key, where, default)
    return check


def _read_mcp_servers(table: dict, where: str, extra: dict) -> list[dict]:
    servers = []
    for index, item in enumerate(read_list(table, "mcp_servers", where)):
        place = f"{where}.mcp_servers[{index}]"
        item = read_table(item, place)
        keep_unknown(item, {"name", "transport", "url", "command", "args", "headers"}, place, extra)
        transport = read_choice(item, "transport", place, ("sse", "streamable-http", "http", "stdio")) or "sse"
        server = {
            "name": read_text(item, "name", place),
            "transport": "streamable-http" if transport == "http" else transport,
            "url": read_text(item, "url", place),
            "command": read_text(item, "command", place),
            "args": read_text_list(item, "args", place) or [],
            "headers": read_env_table(item, place, key="headers"),
        }
        if not server["name"]:
            raise TaskTomlError(f"task.toml [{place}] needs a name.")
        if server["transport"] != "stdio" and not server["url"]:
            raise TaskTomlError(f"task.toml [{place}] uses {server['transport']} and needs a url.")
        if server["transport"] == "stdio" and not server["command"]:
            raise TaskTomlError(f"task.toml [{place}] uses stdio and needs a command.")
        servers.append(server)
    return servers


def _read_steps(value: Any, extra: dict) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TaskTomlError(f"task.toml steps must be a list of [[steps]] tables, not {describe(value)}.")
    steps = []
    for index, item in enumerate(value):
        item = read_table(item, f"steps[{index}]")
        name = read_text(item, "name", f"steps[{index}]")
        if not name:
            raise TaskTomlError(f"task.toml step {index + 1} needs a name.")
        where = f"steps[{name}]"
        keep_unknown(item, _STEP_KEYS, where, extra)
        step = {key: item[key] for key in _STEP_KEYS if key in item}
        for key in ("agent", "verifier", "healthcheck"):
            if key in step:
                read_table(step[key], f"{where}.{key}")
        min_reward = step.get("min_reward")
        if min_reward is not None and not isinstance(min_reward, dict):
            step["min_reward"] = read_number(item, "min_reward", where)
        steps.append(step)
    return steps


def _read_artifacts(value: Any, where: str, extra: dict) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TaskTomlError(f"task.toml {where} must be a list, not {describe(value)}.")
    artifacts = []
    for index, item in enumerate(value):
        place = f"{where}[{index}]"
        if isinstance(item, str):
            artifacts.append(item)
            continue
        item = read_table(item, place)
        keep_unknown(item, {"source", "destination", "exclude", "service"}, place, extra)
        source = read_text(item, "source", place)
        if not source:
            raise TaskTomlError(f"task.toml {place} needs a source path.")
        artifacts.append({
            "source": source,
            "destination": read_text(item, "destination", place),
            "exclude": read_text_list(item, "exclude", place) or [],
            "service": read_text(item, "service", place),
        })
    return artifacts
