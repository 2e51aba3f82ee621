"""One bubblewrap sandbox: a long-lived process whose namespaces every command enters.

The sandbox is started once per trial (`Sandbox.start`) and holds a user, pid, mount, ipc, uts and net namespace
open with a sleeping init; a public-network task's namespace gets outbound internet of its own
(rlx/runs/sandbox_net.py), a no-network task's keeps only its loopback. Each command enters those namespaces with `nsenter`,
so files and background processes (terminus-2's tmux server) persist between commands. On the host the sandbox's
root is a uid of its own with no capabilities (leased from rlx/runs/sandbox_uids.py when the worker is root);
inside it is uid 0 of its own namespace, but without any capability there either: the init is started with
`--cap-drop ALL` and every command passes through setpriv after nsenter (entering a user namespace gives every
capability in it), so nothing in the sandbox can mount over a path later commands use. Both run under the
system-call filter of rlx/runs/sandbox_seccomp.py (`--seccomp` for the init, a preexec_fn for commands).

Limits are resource limits set before exec, inherited by everything the sandbox starts: processes (a fork bomb
stops at the cap, which counts the sandbox's uid and so this sandbox alone), address space, CPU seconds, file
size, open files; and, where the host gives a cgroup, memory, processes and CPU for the whole sandbox
(rlx/runs/sandbox_cgroup.py). `walls()` says which held, for the run page. Stopping kills the init, and the kernel
takes the whole pid namespace with it; `--die-with-parent` does the same when the worker dies.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import dataclasses
from dataclasses import dataclass, field

from rlx.runs import sandbox_cgroup, sandbox_net, sandbox_seccomp
from rlx.runs.sandbox_uids import NoFreeUid, UidLease, lease_uid

SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MB = 1024 * 1024
MAX_CAPTURE = 512 * 1024  # bytes of stdout (and of stderr) kept per command; a looping agent cannot fill memory
_MERGED_TOPS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_NO_CAPABILITIES = ("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--no-new-privs",
                    "--")


class SandboxError(RuntimeError):
    """The sandbox could not be started or used; the message says why in one sentence."""


# A process's address space where a cgroup caps the sandbox's memory. Address space is not memory: a browser
# reserves 100 GB and more it never touches (Chromium's heap cages; it traps at start under 128 GB), so RLIMIT_AS
# at the task's memory would keep any browser out. Without a group it stays the task's memory with headroom, the
# only wall there is.
GROUPED_ADDRESS_SPACE_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    processes: int = 256  # RLIMIT_NPROC
    memory_mb: int = 2048  # RLIMIT_AS of each process
    cpu_seconds: int = 3600  # RLIMIT_CPU of each process
    file_mb: int = 1024  # RLIMIT_FSIZE
    open_files: int = 1024  # RLIMIT_NOFILE
    storage_mb: int = 1024  # everything the sandbox may write, in memory: its root tmpfs and /dev/shm together
    group_memory_mb: int | None = None  # the whole sandbox's memory, tmpfs included (its cgroup); None: no group
    group_processes: int = 512  # the whole sandbox's processes (its cgroup)
    group_cpus: float | None = None  # the whole sandbox's CPU quota, in CPUs (its cgroup); None: no quota

    def apply(self) -> None:
        """Called in the child between fork and exec (preexec_fn): the limits every sandboxed process inherits."""
        mb = 1024 * 1024
        for which, value in (
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_AS, self.memory_mb * mb),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_FSIZE, self.file_mb * mb),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(which, (value, value))


@dataclass
class ExecOutcome:
    stdout: str
    stderr: str
    return_code: int
    timed_out: bool = False


@dataclass
class Sandbox:
    workdir: str = "/app"
    network: bool = False
    limits: Limits = field(default_factory=Limits)
    writable: tuple[str, ...] = ("/tmp", "/root", "/logs")
    hostname: str = "sandbox"
    read_only: tuple[tuple[str, str], ...] = ()  # (host folder, where inside): the agents folder, the model relay
    _process: subprocess.Popen | None = None
    _child_pid: int | None = None
    _uid: UidLease | None = None
    group: sandbox_cgroup.Group = field(default_factory=sandbox_cgroup.Group)
    net: sandbox_net.Network = field(default_factory=sandbox_net.Network)

    # --- lifecycle -----------------------------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> None:
        """Start the sandbox and return once its mounts are in place (the init says so through a pipe)."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxError("bubblewrap (`bwrap`) is not installed on this worker: apt-get install bubblewrap.")
        if os.geteuid() == 0:
            try:
                self._uid = lease_uid()
            except NoFreeUid as exc:
                raise SandboxError(str(exc)) from None
        if self.limits.group_memory_mb:
            self.group = sandbox_cgroup.create(self.limits.group_memory_mb, self.limits.group_processes,
                                               self.limits.group_cpus)
        status_read, status_write = os.pipe()
        ready_read, ready_write = os.pipe()
        seccomp_fd = sandbox_seccomp.bpf_file()
        resolv_fd = _data_file(sandbox_net.RESOLV_CONF)
        args = [*_drop_privileges(self._uid), bwrap, *self._bwrap_args(status_write, resolv_fd),
                "--cap-drop", "ALL", "--seccomp", str(seccomp_fd),
                "bash", "-c", f"echo ready >&{ready_write}; exec {ready_write}>&-; exec sleep infinity"]
        try:
            self._process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                pass_fds=(status_write, ready_write, seccomp_fd, resolv_fd), start_new_session=True,
                env=_empty_env(),
                preexec_fn=self._join,
            )
        except BaseException:
            self._release_uid()
            self.group.remove()
            raise
        finally:
            os.close(status_write)
            os.close(ready_write)
            os.close(seccomp_fd)
            os.close(resolv_fd)
        try:
            self._child_pid = _read_child_pid(status_read, timeout)
            if not _wait_readable(ready_read, timeout) or os.read(ready_read, 16) != b"ready\n":
                raise SandboxError(f"the sandbox did not start: {self._stderr_tail()}")
            if self.network:
                self._attach_network()
        except BaseException:
            self.stop()
            raise
        finally:
            os.close(status_read)
            os.close(ready_read)

    def _attach_network(self) -> None:
        """Outbound internet of its own (rlx/runs/sandbox_net.py); without it, no network, said in `net.wall`."""
        try:
            self.net = sandbox_net.attach(self._child_pid, _drop_privileges(self._uid), self.group.join,
                                          _empty_env())
        except sandbox_net.NetworkUnavailable as exc:
            self.net = sandbox_net.Network(f"{sandbox_net.NO_NETWORK} (the host could not give it one of its own: "
                                           f"{exc})")

    def stop(self) -> None:
        """Kill the sandbox and everything in it; safe to call twice."""
        self.net.stop()
        process, self._process = self._process, None
        if process is None:
            self._release_uid()
            self.group.remove()
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
            pass
        if process.stderr:
            process.stderr.close()
        self._release_uid()  # the pid namespace went with its init: nothing runs as the uid any more
        self.group.remove()

    def _release_uid(self) -> None:
        lease, self._uid = self._uid, None
        if lease is not None:
            lease.release()

    def walls(self) -> str:
        """One sentence for the run page: which limits hold, and how (what the host gave, or what fell back)."""
        limits, group = self.limits, self.group
        if group.kind:
            held = [f"memory {_size(limits.group_memory_mb)} with its disk", f"{limits.group_processes} processes",
                    f"{group.cpus:g} CPU" if group.cpus else f"CPU {limits.cpu_seconds} s a process (no quota)"]
            how = f"({group.kind})"
        else:
            held = [f"memory {_size(limits.memory_mb)} a process", f"{limits.processes} processes",
                    f"CPU {limits.cpu_seconds} s a process"]
            how = "(per process only: the host gives no cgroup)"
        network = self.net.wall if self.network else sandbox_net.NO_NETWORK
        return f"Limits {how}: {', '.join(held)}, disk {_size(limits.storage_mb)} in memory, {network}."

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def uid(self) -> int | None:
        """The host uid the sandbox runs as (None when the worker is not root: then it is the worker's own)."""
        return self._uid.uid if self._uid else None

    @property
    def root(self) -> str:
        """The sandbox's root seen from the host (its init's root), for reading its files without running
        anything inside it. Paths under it must be opened without following links (rlx/runs/sandbox_files.py)."""
        if not self.running or self._child_pid is None:
            raise SandboxError("the sandbox is not running.")
        return f"/proc/{self._child_pid}/root"

    @property
    def init_pid(self) -> int | None:
        """The sleeping init's pid inside the sandbox's pid namespace: bubblewrap is its pid 1, and the init is
        the first child it started (read from the host, the last of its NSpid line)."""
        if not self.running or self._child_pid is None:
            return None
        try:
            with open(f"/proc/{self._child_pid}/task/{self._child_pid}/children") as children:
                first = min(int(pid) for pid in children.read().split())
            with open(f"/proc/{first}/status") as status:
                line = next((ln for ln in status if ln.startswith("NSpid:")), "")
        except (OSError, ValueError):  # gone, or no child: there is nothing to spare
            return None
        return int(line.split()[-1]) if line.split()[1:] else None

    @property
    def pid(self) -> int | None:
        """The host pid of the sandbox's bwrap process (its process group holds the whole sandbox)."""
        return self._process.pid if self._process else None

    # --- commands ----------------------------------------------------------------------------------------

    def command(self, script: str, env: dict[str, str] | None = None, cwd: str | None = None) -> list[str]:
        """The argv that runs `script` with bash inside the sandbox, with only `env` (plus a bare minimum)."""
        if not self.running or self._child_pid is None:
            raise SandboxError("the sandbox is not running.")
        base = {"PATH": SANDBOX_PATH, "HOME": "/root", "TERM": "xterm-256color", "LANG": "C.UTF-8",
                "HOSTNAME": self.hostname}
        variables = [f"{k}={v}" for k, v in {**base, **(env or {})}.items() if _valid_name(k)]
        where = cwd or self.workdir
        script = f"cd {_quote(where)} 2>/dev/null || cd / ; {script}"
        # Entering the user namespace gives nsenter every capability in it: setpriv takes them all away again
        # (bounding set included, so no exec gives them back) before anything of the task's runs.
        return ["nsenter", "-t", str(self._child_pid), "-U", "-m", "-p", "-i", "-u", "-n", "-r", "-w", "--",
                *_NO_CAPABILITIES, "env", "-i", *variables, "bash", "-c", script]

    def enter(self) -> None:
        """preexec_fn of a command made by `command`: the limits, and the system-call filter (rlx/runs/
        sandbox_seccomp.py), which nsenter and everything after it inherit."""
        self._join()
        sandbox_seccomp.load()

    def _join(self) -> None:
        self.group.join()
        limits = self.limits
        if self.group.kind:  # the group caps the sandbox's memory: a process's address space need not be
            limits = dataclasses.replace(limits, memory_mb=max(limits.memory_mb, GROUPED_ADDRESS_SPACE_MB))
        limits.apply()

    async def run(self, script: str, *, env: dict[str, str] | None = None, cwd: str | None = None,
                  timeout: float | None = None, stdin: bytes | None = None, on_output=None) -> ExecOutcome:
        """Run a command to its end (or its timeout, which kills it and everything it started)."""
        argv = self.command(script, env, cwd)
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=_empty_env(),
            preexec_fn=self.enter, limit=1 << 20,
        )
        outputs = [bytearray(), bytearray()]

        async def pump(stream, sink: bytearray, name: str):
            while chunk := await stream.read(65536):
                if len(sink) < MAX_CAPTURE:
                    sink += chunk[: MAX_CAPTURE - len(sink)]
                if on_output is not None:
                    await on_output(chunk.decode("utf-8", errors="replace"), name)

        async def feed():
            if stdin is not None:
                process.stdin.write(stdin)
                await process.stdin.drain()
                process.stdin.close()

        work = asyncio.gather(pump(process.stdout, outputs[0], "stdout"), pump(process.stderr, outputs[1], "stderr"),
                              feed(), process.wait())
        timed_out = False
        try:
            await asyncio.wait_for(work, timeout)
        except asyncio.TimeoutError:
            timed_out = True
        finally:
            if process.returncode is None or timed_out:
                _kill_group(process.pid)
                await process.wait()
        return ExecOutcome(_text(outputs[0]), _text(outputs[1]), process.returncode if not timed_out else 124,
                           timed_out)

    # --- arguments -------------------------------------------------------------------------------------------

    def _bwrap_args(self, status_fd: int, resolv_fd: int) -> list[str]:
        # A network namespace of its own always: a public-network task's outbound stack is attached to it once it
        # runs (rlx/runs/sandbox_net.py); the host's network is never shared.
        args = ["--unshare-user", "--uid", "0", "--gid", "0", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-net", "--hostname", self.hostname, "--die-with-parent", "--new-session",
                "--json-status-fd", str(status_fd)]
        # The sandbox's root is one tmpfs of storage_mb (less /dev/shm's share): every writable folder is a plain
        # folder in it, so a task writes at most storage_mb in all, and the worker reads them back from the host
        # side through `root` (rlx/runs/sandbox_files.py). It must be the first mount: the rest go on top of it.
        storage, shm = _storage_split(self.limits.storage_mb)
        args += ["--size", str(storage * MB), "--tmpfs", "/"]
        args += ["--ro-bind", "/usr", "/usr"]
        for top in _MERGED_TOPS:
            path = f"/{top}"
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        # /dev is bubblewrap's own tmpfs, unbounded: read-only once its nodes are made, /dev/shm a small tmpfs on it.
        args += ["--ro-bind", "/etc", "/etc", *_resolv_conf(resolv_fd), "--dev", "/dev", "--perms", "1777", "--size", str(shm * MB), "--tmpfs", "/dev/shm",
                 "--remount-ro", "/dev", "--proc", "/proc"]
        for source, target in self.read_only:
            args += ["--ro-bind", source, target]
        for path in dict.fromkeys((*self.writable, self.workdir)):
            args += ["--perms", "1777" if path == "/tmp" else "0755", "--dir", path]
        args += ["--chdir", self.workdir, "--clearenv", "--setenv", "PATH", SANDBOX_PATH]
        return args

    def _stderr_tail(self) -> str:
        process = self._process
        if process is None or process.stderr is None:
            return "no output"
        if process.poll() is None:
            return "it did not report ready in time"
        return (process.stderr.read(4000).decode("utf-8", "replace").strip() or f"bwrap exited {process.returncode}")


def _storage_split(storage_mb: int) -> tuple[int, int]:
    """(root tmpfs, /dev/shm) in MiB, adding up to storage_mb: shared memory gets an eighth, at most 64 MiB."""
    shm = max(1, min(64, storage_mb // 8))
    return max(1, storage_mb - shm), shm


def _size(mb: int | None) -> str:
    mb = mb or 0
    return f"{mb / 1024:.3g} GB" if mb >= 1024 else f"{mb} MB"


def _drop_privileges(lease: UidLease | None) -> list[str]:
    """As root, become the sandbox's own uid with no capabilities before bwrap creates its user namespace."""
    if lease is None:
        return []
    return ["setpriv", f"--reuid={lease.uid}", f"--regid={lease.uid}", "--clear-groups", "--inh-caps=-all", "--"]


def _resolv_conf(fd: int, path: str = "/etc/resolv.conf") -> list[str]:
    """bwrap arguments putting the sandbox's own resolv.conf (sandbox_net's DNS forwarder) where the host's really
    is: through a link (systemd-resolved's stub under /run) the file is made in the sandbox's own root."""
    if not os.path.lexists(path):
        return []
    target = os.path.realpath(path)
    if target.startswith(("/etc/", "/usr/")):  # inside the read-only binds: only over a file that is there
        return ["--ro-bind-data", str(fd), target] if os.path.isfile(target) else []
    return ["--dir", os.path.dirname(target), "--ro-bind-data", str(fd), target]


def _data_file(data: bytes) -> int:
    """An unlinked temp file holding `data`, at offset 0 (for bwrap's --ro-bind-data). The caller closes it."""
    handle = tempfile.TemporaryFile()
    handle.write(data)
    handle.flush()
    fd = os.dup(handle.fileno())
    handle.close()
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _empty_env() -> dict[str, str]:
    # Nothing of the worker's environment (tokens, keys) reaches bwrap, nsenter or the sandbox.
    return {"PATH": SANDBOX_PATH, "LANG": "C.UTF-8"}


def _read_child_pid(fd: int, timeout: float) -> int:
    buffer = b""
    while _wait_readable(fd, timeout):
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        buffer += chunk
        for line in buffer.split(b"\n"):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and "child-pid" in message:
                return int(message["child-pid"])
    raise SandboxError("bubblewrap did not start the sandbox (user namespaces unavailable?).")


def _wait_readable(fd: int, timeout: float) -> bool:
    readable, _, _ = select.select([fd], [], [], timeout)
    return bool(readable)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _text(data: bytearray) -> str:
    text = data.decode("utf-8", errors="replace")
    return text + "\n[output cut at 512 KiB]" if len(data) >= MAX_CAPTURE else text


def _valid_name(name: str) -> bool:
    return bool(name) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _quote(path: str) -> str:
    return shlex.quote(path)
