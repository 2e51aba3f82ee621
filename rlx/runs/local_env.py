"""`local`: Harbor's environment contract on a bubblewrap sandbox, selected by import path
(`rlx.runs.local_env:LocalEnvironment`). One sandbox per trial; see rlx/runs/bwrap.py for what it isolates.

Files go in through the sandbox (our own tar, piped to a `tar -x` inside it: whatever runs there, it can only
write inside the sandbox) and come out by being read from the host side, one name at a time without following
links (rlx/runs/sandbox_files.py): no program inside the sandbox runs for the worker, and nothing it wrote is
unpacked, so neither a symlink an agent plants nor a `tar` it replaced makes the worker write outside the store. The task's declared network mode is enforced: a
no-network task gets a sandbox with no interface but loopback, a public one outbound internet of its own
(rlx/runs/sandbox_net.py), never the host's network.
"""

from __future__ import annotations

import asyncio
import posixpath
import shlex
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.tar_transfer import pack_dir_to_bytes
from harbor.utils.path_filter import filter_paths_by_patterns

from rlx.runs.bwrap import Limits, Sandbox
from rlx.runs.replay import Replay, copy_from_context, plan_for, replay_of
from rlx.runs.sandbox_files import copy_dir_out, copy_file_out
from rlx.runs.verifier_wall import strays_script
from rlx.runs.walls import write_walls

IMPORT_PATH = "rlx.runs.local_env:LocalEnvironment"
DEFAULT_TIMEOUT = 600
MAX_CPUS = 8  # a task asking for more gets this many (the quota is a cap, never a reservation)


def _loopback_only(policy) -> bool:
    hosts = list(getattr(policy, "allowed_hosts", None) or [])
    return (getattr(getattr(policy, "network_mode", None), "value", None) == "allowlist" and bool(hosts)
            and all(h in ("127.0.0.1", "localhost", "::1") for h in hosts))


def _cpus(asked) -> float:
    try:
        return min(max(float(asked or 1), 0.1), MAX_CPUS)
    except (TypeError, ValueError):
        return 1.0


class LocalEnvironment(BaseEnvironment):
    """Environment kwargs (none secret: Harbor writes them to config.json): max_processes, cpu_seconds,
    read_only, [host folder, path inside] pairs linked in read-only (an installed agent's folder, its model relay),
    and address_space_mb, a floor under each process's address space for an agent whose runtime reserves more
    than it uses (installed_config.ADDRESS_SPACE_MB)."""

    def __init__(self, *args, **kwargs):
        self._extra = {k: kwargs.pop(k) for k in ("max_processes", "cpu_seconds", "read_only", "address_space_mb")
                       if k in kwargs}
        super().__init__(*args, **kwargs)

    @staticmethod
    def type() -> str:
        return "local"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True)

    # Harbor allowlists an installed agent's model host for a no-network task; ours is the sandbox's own loopback
    # (the model forwarder, rlx/runs/installed_agents.py), which a sandbox without network reaches and nothing more.
    def validate_network_policy_support(self, network_policy=None) -> None:
        if not _loopback_only(network_policy or self._network_policy):
            super().validate_network_policy_support(network_policy)

    @property
    def _network_disabled(self) -> bool:
        return super()._network_disabled or _loopback_only(self._network_policy)

    def _validate_definition(self):
        plan = plan_for(self.environment_dir)
        if plan is None and not self.task_env_config.docker_image:
            raise ValueError("The task has neither a Dockerfile nor an image: there is nothing to start.")
        if plan is not None and not plan.replayable:
            raise ValueError("The local sandbox cannot replay this task's Dockerfile: " + " ".join(plan.reasons))
        self._replay = replay_of(plan) if plan is not None else Replay()

    # --- lifecycle -----------------------------------------------------------------------------------------

    async def start(self, force_build: bool) -> None:
        workdir = self.task_env_config.workdir or (self._replay.workdir if self._replay.workdir != "/" else "/app")
        self._workdir = workdir
        self._sandbox = Sandbox(workdir=workdir, network=not self._network_disabled, limits=self._limits(),
                                writable=("/tmp", "/root", "/logs", "/tests", "/solution", "/installed-agent"),
                                read_only=tuple((str(a), str(b)) for a, b in self._extra.get("read_only") or ()))
        await asyncio.to_thread(self._sandbox.start)
        walls = self._sandbox.walls()
        self.logger.info(walls)
        write_walls(self.trial_paths.trial_dir, walls)  # the runner puts it in the record, for the page
        await self.ensure_dirs(self._mount_targets(writable_only=True))
        await self._replay_dockerfile()
        await self._upload_environment_dir_after_start()

    async def stop(self, delete: bool):
        sandbox = getattr(self, "_sandbox", None)
        if sandbox is not None:
            await asyncio.to_thread(sandbox.stop)

    def _limits(self) -> Limits:
        cfg = self.task_env_config
        memory = self._effective_memory_mb or cfg.memory_mb or 2048
        storage = self._effective_storage_mb or cfg.storage_mb or 1024
        # Per-process address space: the task's memory with headroom (runtimes reserve more than they touch).
        # The whole sandbox (its cgroup, where the host gives one): the task's memory plus its in-memory storage,
        # since the tmpfs pages are charged to the group of the process that wrote them.
        storage_mb, processes = min(max(int(storage), 64), 8192), self._kwargs_int("max_processes", 256)
        address_space = max(min(max(int(memory) * 2, 1024), 16384), self._kwargs_int("address_space_mb", 0))
        return Limits(memory_mb=address_space, storage_mb=storage_mb,
                      processes=processes, cpu_seconds=self._kwargs_int("cpu_seconds", 3600),
                      group_memory_mb=int(memory) + storage_mb, group_processes=processes,
                      group_cpus=_cpus(self._effective_cpus or cfg.cpus))

    def _kwargs_int(self, name: str, default: int) -> int:
        try:
            return int(self._extra.get(name, default))
        except (TypeError, ValueError, AttributeError):
            return default

    # --- the Dockerfile ----------------------------------------------------------------------------------

    async def _replay_dockerfile(self) -> None:
        for note in self._replay.notes:
            self.logger.warning(note)
        for kind, cwd, payload in self._replay.actions:
            if kind == "mkdir":
                await self.exec(f"mkdir -p {shlex.quote(payload)}")
            elif kind == "copy":
                await copy_from_context(self, *payload)
            elif kind == "run":
                result = await self.exec(payload, cwd=cwd, timeout_sec=300)
                if result.return_code != 0:
                    self.logger.warning(
                        f"Dockerfile RUN skipped in the local sandbox (exit {result.return_code}; it uses the "
                        f"worker's own userland): {payload[:200]}")

    # --- commands --------------------------------------------------------------------------------------------

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        merged = {**self._replay.env, **(self.task_env_config.env or {}), **(self._merge_env(env) or {})}
        outcome = await self._sandbox.run(command, env=merged, cwd=cwd or self._workdir,
                                          timeout=timeout_sec or DEFAULT_TIMEOUT, on_output=self._output_callback())
        if outcome.timed_out:
            raise RuntimeError(f"Command timed out after {timeout_sec or DEFAULT_TIMEOUT} seconds: {command[:200]}")
        return ExecResult(stdout=outcome.stdout, stderr=outcome.stderr, return_code=outcome.return_code)

    async def end_strays(self) -> None:
        """Kill what the agent left running (rlx/runs/verifier_wall.py), before the last verifier."""
        init = self._sandbox.init_pid
        if init is None:
            return
        outcome = await self._sandbox.run(strays_script(init), timeout=DEFAULT_TIMEOUT)
        killed = outcome.stdout.strip()
        if killed not in ("", "0"):
            self.logger.info("before the verifier: killed %s process(es) the agent left running", killed)

    async def _checked(self, command: str, stdin: bytes | None = None, what: str = "") -> bytes | str:
        outcome = await self._sandbox.run(command, stdin=stdin, timeout=DEFAULT_TIMEOUT)
        if outcome.return_code != 0:
            raise RuntimeError(f"{what} failed in the sandbox: {outcome.stderr.strip()[:500]}")
        return outcome.stdout

    # --- files -----------------------------------------------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str):
        data = Path(source_path).read_bytes()
        parent = posixpath.dirname(target_path) or "/"
        await self._checked(f"mkdir -p {shlex.quote(parent)} && cat > {shlex.quote(target_path)}", stdin=data,
                            what=f"writing {target_path}")

    async def upload_dir(self, source_dir: Path | str, target_dir: str):
        data = await asyncio.to_thread(lambda: pack_dir_to_bytes(source_dir, compress=True).getvalue())
        target = shlex.quote(target_dir)
        await self._checked(f"mkdir -p {target} && tar -xzf - -C {target} --no-same-owner", stdin=data,
                            what=f"copying a folder to {target_dir}")

    # Out of the sandbox: read from the host side (rlx/runs/sandbox_files.py). No program inside it runs, and
    # no archive it could have written is unpacked: it may have replaced its own `tar` and `cat`.

    async def download_file(self, source_path: str, target_path: Path | str):
        await asyncio.to_thread(copy_file_out, self._sandbox.root, source_path, Path(target_path))

    async def download_dir(self, source_dir: str, target_dir: Path | str):
        await self._copy_out(source_dir, target_dir)

    async def download_dir_with_exclusions(self, *, source_dir: str, target_dir: Path | str, exclude: list[str]):
        await self._copy_out(source_dir, target_dir, exclude=tuple(exclude))

    async def download_dir_filtered(self, *, source_dir: str, target_dir: Path | str, include=None, exclude=None,
                                    protect=None):
        protected = set(protect or ())

        def wanted(path: str) -> bool:
            return path in protected or bool(filter_paths_by_patterns([path], include=include, exclude=exclude))

        await self._copy_out(source_dir, target_dir, include=wanted)

    async def _copy_out(self, source_dir: str, target_dir: Path | str, **filters) -> None:
        copied = await asyncio.to_thread(copy_dir_out, self._sandbox.root, source_dir, Path(target_dir), **filters)
        if copied.skipped:
            self.logger.warning(f"{source_dir}: {copied.summary()}")


__all__ = ["IMPORT_PATH", "LocalEnvironment"]
