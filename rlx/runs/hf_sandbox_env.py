"""`hf-sandbox`: Harbor's HF Sandbox environment on the visitor's own account, selected by import path
(`rlx.runs.hf_sandbox_env:HFSandboxEnvironment`).

What it adds to Harbor's class:
- the visitor's token, per run, lent to this work horse by the runner (`lend`) and never passed as an environment
  kwarg: Harbor writes kwargs verbatim into config.json, lock.json and result.json;
- labels naming the run, so an orphaned sandbox can be found and cancelled on the visitor's account;
- an idle timeout at least the run's own time limit (a foreground command does not count as activity upstream);
- a task without a prebuilt image starts from its Dockerfile's base image, and the Dockerfile's steps are replayed
  in order (WORKDIR, ENV, COPY/ADD from the build context, RUN with the network on, as a build has it); a RUN that
  fails fails the run with its output, as a failed build would;
- no-network tasks enforced, not refused: every command runs in a fresh network namespace (`unshare -rn`), and a
  sandbox that cannot make one is refused before the agent starts;
- output: each command's output goes to Harbor's log callbacks as it arrives, and the job's own log stream (SSE,
  `fetch_job_logs`) to the run's events;
- files back: the sandbox's `tar` may be the task's own, so its archive is fetched within a byte cap and unpacked
  by rlx/runs/sandbox_tar.py (regular files only, bytes counted as written), never by tarfile's extract functions,
  whose filter this machine's Python 3.12.1 lets a symbolic-link chain past.
"""

from __future__ import annotations

import asyncio
import shlex
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from harbor.environments.base import ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.hf_sandbox import HFSandboxEnvironment as HarborHFSandbox
from harbor.environments.tar_transfer import remote_pack_command
from harbor.utils.path_filter import filter_paths_by_patterns

from rlx.runs.replay import Replay, copy_from_context, plan_for, replay_of
from rlx.runs.sandbox_files import MAX_BYTES
from rlx.runs.sandbox_tar import unpack_sandbox_tar

IMPORT_PATH = "rlx.runs.hf_sandbox_env:HFSandboxEnvironment"
RUN_LABEL = "rlx-run"
START_TIMEOUT = 180.0  # seconds for the job to be scheduled and its server to answer
MAX_LOG_LINES = 400  # of the job's own log stream published to the run's events
NO_NETWORK = "unshare --net --map-root-user -- "
REPLAY_STEP_TIMEOUT = 900  # seconds for one RUN step of a replayed Dockerfile (package installs)


class HFSandboxUnavailable(RuntimeError):
    """The HF Sandbox could not be started; the message says why in a sentence (never with the token)."""


@dataclass
class Loan:
    """What the runner lends this work horse for one run: never written anywhere."""

    token: str
    publish: Callable[..., object]  # publish(kind, **data) into the run's events


_LOANS: dict[str, Loan] = {}


def lend(run_id: str, token: str, publish: Callable[..., object]) -> None:
    _LOANS[run_id] = Loan(token, publish)


def take_back(run_id: str) -> None:
    _LOANS.pop(run_id, None)


class HFSandboxEnvironment(HarborHFSandbox):
    """Environment kwargs (none secret): run_id, idle_timeout (seconds), flavor, start_timeout (seconds)."""

    def __init__(self, *args, run_id: str, idle_timeout: int = 600, flavor: str = "cpu-basic",
                 start_timeout: float = START_TIMEOUT, **kwargs):
        self._run_id, self._start_timeout = run_id, float(start_timeout)
        self._replay, self._base_image = Replay(), None
        super().__init__(*args, flavor=flavor, job_timeout=int(idle_timeout), forward_hf_token=False, **kwargs)

    def _validate_definition(self) -> None:
        """A prebuilt image as Harbor asks, or a Dockerfile the replay can run from its base image."""
        if self.task_env_config.docker_image:
            return super()._validate_definition()
        plan = plan_for(self.environment_dir)
        if plan is None:
            raise ValueError("An HF Sandbox starts an image, and this task names none and ships no Dockerfile.")
        if not plan.replayable:
            raise ValueError("An HF Sandbox cannot replay this task's Dockerfile from its base image: "
                             + " ".join(plan.reasons))
        self._replay, self._base_image = replay_of(plan), plan.base_image

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True)

    def _loan(self) -> Loan:
        loan = _LOANS.get(self._run_id)
        if loan is None:
            raise RuntimeError("This run has no Hugging Face token to start a sandbox with; sign in and start it again.")
        return loan

    async def start(self, force_build: bool) -> None:
        from huggingface_hub import Sandbox

        loan = self._loan()
        image = self.task_env_config.docker_image or self._base_image
        loan.publish("sandbox", text=f"Starting an HF Sandbox ({image}, {self._flavor}, idle timeout "
                                     f"{self._idle_timeout} s) on your account.")
        try:
            self._sandbox = await asyncio.to_thread(
                Sandbox.create, image=image, flavor=self._flavor, idle_timeout=self._idle_timeout,
                labels={RUN_LABEL: self._run_id}, start_timeout=self._start_timeout, token=loan.token)
        except Exception as exc:  # Sandbox.create cancels a job it started before raising
            raise HFSandboxUnavailable(_why_not_started(exc)) from None
        loan.publish("sandbox", text=f"Sandbox {self._sandbox.id} is ready.", job=self._sandbox.id)
        _follow_job_logs(self._sandbox.id, loan)
        try:
            if self._network_disabled:
                await self._check_network_can_be_cut()
            await self._replay_dockerfile(loan)
            replayed = self._replay.workdir if self._replay.workdir != "/" else None
            self._workdir = self.task_env_config.workdir or replayed or await self._image_workdir()
            await asyncio.to_thread(self._sandbox.files.mkdir, self._workdir)
            await self.ensure_dirs(self._mount_targets(writable_only=True))
            await self._upload_environment_dir_after_start()
        except BaseException:
            await self.stop(delete=True)  # a sandbox that cannot serve the run is cancelled, not left to idle
            raise

    async def _replay_dockerfile(self, loan: Loan) -> None:
        actions = self._replay.actions
        if not actions and not self._replay.env:
            return
        loan.publish("sandbox", text=f"Replaying the Dockerfile: {len(actions)} steps.")
        for note in self._replay.notes:
            loan.publish("sandbox", text=note)
        for n, (kind, cwd, payload) in enumerate(actions, 1):
            if kind == "mkdir":
                await asyncio.to_thread(self._sandbox.files.mkdir, payload)
            elif kind == "copy":
                await copy_from_context(self, *payload)
            elif kind == "run":  # a build step: the network on, as `docker build` has it
                loan.publish("sandbox", text=f"Step {n} of {len(actions)}: RUN {payload[:200]}")
                on_stdout, on_stderr = self._streamers()
                result = await asyncio.to_thread(
                    self._sandbox.run, ["/bin/sh", "-c", payload], shell=False, cwd=cwd,
                    env=self._replay.env or None, timeout=REPLAY_STEP_TIMEOUT, check=False,
                    on_stdout=on_stdout, on_stderr=on_stderr)
                if result.exit_code != 0:
                    tail = ((result.stderr or "") + (result.stdout or "")).strip()[-400:]
                    raise RuntimeError(f"The Dockerfile's step RUN {payload[:160]} failed in the HF Sandbox "
                                       f"(exit {result.exit_code}{', timed out' if result.timed_out else ''}): "
                                       f"{tail}")

    async def _image_workdir(self) -> str:
        """The image's WORKDIR; a bare "/" means the image names none, and tasks then expect /app (as locally)."""
        answer = await asyncio.to_thread(self._sandbox.run, ["/bin/sh", "-c", "pwd"], shell=False, timeout=30,
                                         check=False)
        workdir = (answer.stdout or "").strip()
        return workdir if workdir.startswith("/") and workdir != "/" else "/app"

    async def _check_network_can_be_cut(self) -> None:
        probe = await asyncio.to_thread(self._sandbox.run, ["/bin/sh", "-c", NO_NETWORK + "true"], shell=False,
                                        timeout=30, check=False)
        if probe.exit_code != 0:
            raise RuntimeError("This task must run without internet, and the HF Sandbox could not cut its network "
                               f"(unshare failed: {(probe.stderr or probe.stdout).strip()[:200]}).")

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        sandbox = self._require_sandbox()
        env = {**self._replay.env, **(self._merge_env(env) or {})}  # the Dockerfile's ENV, as an image's
        prefix = NO_NETWORK if self._network_disabled else ""
        argv = ["/bin/sh", "-c", f"{prefix}/bin/bash -c {shlex.quote(command)}"]
        on_stdout, on_stderr = self._streamers()
        result = await asyncio.to_thread(
            sandbox.run, argv, shell=False, cwd=cwd or getattr(self, "_workdir", None), env=env or None,
            timeout=timeout_sec, check=False, on_stdout=on_stdout, on_stderr=on_stderr)
        if result.timed_out:
            raise RuntimeError(f"Command timed out after {timeout_sec} seconds: {command[:200]}")
        return ExecResult(stdout=result.stdout, stderr=result.stderr or "",
                          return_code=result.exit_code if result.exit_code is not None else -1)

    # --- files back: bounded, unpacked by our own reader ------------------------------------------------------

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        await asyncio.to_thread(_fetch_bounded, self._require_sandbox(), source_path, Path(target_path))

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        await self._download(source_dir, target_dir)

    async def download_dir_with_exclusions(self, *, source_dir: str, target_dir: Path | str,
                                           exclude: list[str]) -> None:
        await self._download(source_dir, target_dir, exclude=tuple(exclude))

    async def download_dir_filtered(self, *, source_dir: str, target_dir: Path | str, include=None, exclude=None,
                                    protect=None) -> None:
        protected = set(protect or ())

        def wanted(path: str) -> bool:
            return path in protected or bool(filter_paths_by_patterns([path], include=include, exclude=exclude))

        await self._download(source_dir, target_dir, include=wanted)

    async def _download(self, source_dir: str, target_dir: Path | str, **filters) -> None:
        remote = f"/tmp/.rlx-out-{uuid.uuid4().hex[:12]}.tar.gz"
        packed = await self.exec(remote_pack_command(source_dir, remote), timeout_sec=120)
        if packed.return_code != 0:
            raise RuntimeError(f"Could not pack {source_dir} in the HF Sandbox: {(packed.stderr or '')[:300]}")
        with tempfile.TemporaryDirectory(prefix="rlx-hf-out-") as folder:
            archive = Path(folder) / "out.tar.gz"
            await asyncio.to_thread(_fetch_bounded, self._require_sandbox(), remote, archive)
            copied = await asyncio.to_thread(unpack_sandbox_tar, archive, Path(target_dir), **filters)
        await self.exec(f"rm -f {shlex.quote(remote)}", timeout_sec=30)
        if copied.skipped:
            self.logger.warning(f"{source_dir}: {copied.summary()}")

    def _streamers(self):
        """Harbor's output callbacks are coroutines on this loop; the client calls back from its thread."""
        callback = self._output_callback()
        if callback is None:
            return None, None
        loop = asyncio.get_running_loop()

        def sender(stream: str):
            return lambda text: asyncio.run_coroutine_threadsafe(callback(text, stream), loop)

        return sender("stdout"), sender("stderr")


def _fetch_bounded(sandbox, remote: str, local: Path, max_bytes: int = MAX_BYTES) -> None:
    """A file of the sandbox to `local`, refused past `max_bytes` as the server states it and as it landed."""
    size = sandbox.files.stat(remote).size
    if not isinstance(size, int) or size > max_bytes:
        raise RuntimeError(f"{remote} in the HF Sandbox is over {max_bytes // (1024 * 1024)} MiB: not copied.")
    local.parent.mkdir(parents=True, exist_ok=True)
    sandbox.files.download(remote, local)  # a temp file renamed over `local`: a link there is replaced
    if local.stat().st_size > max_bytes:
        local.unlink()
        raise RuntimeError(f"{remote} in the HF Sandbox grew past {max_bytes // (1024 * 1024)} MiB: not copied.")


def _why_not_started(exc: Exception) -> str:
    import httpx2

    if isinstance(exc, httpx2.TimeoutException):
        return "Hugging Face Jobs did not answer in time when asked to start the sandbox; try again later."
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status in (401, 403):
        return (f"Hugging Face refused to start a sandbox with your token (HTTP {status}): it needs the jobs "
                "permission, and the account needs credits.")
    if status is not None:
        return f"Hugging Face Jobs answered HTTP {status} when asked to start the sandbox; try again later."
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
    return f"The HF Sandbox did not start: {text}"


def _follow_job_logs(job_id: str, loan: Loan) -> None:
    """The job's own log stream (server-sent events) into the run's events, until the job ends."""
    from huggingface_hub import HfApi

    def follow():
        try:
            api = HfApi(token=loan.token)
            for n, line in enumerate(api.fetch_job_logs(job_id=job_id, follow=True)):
                if n >= MAX_LOG_LINES:
                    break
                loan.publish("sandbox", text=line)
        except Exception:  # the log stream is a courtesy; the run's own outcome does not depend on it
            pass

    threading.Thread(target=follow, name=f"hf-job-logs-{job_id}", daemon=True).start()


__all__ = ["IMPORT_PATH", "HFSandboxEnvironment", "lend", "take_back"]
