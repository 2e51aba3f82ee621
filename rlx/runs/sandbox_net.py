"""A public-network sandbox's own network: outbound internet only, never the host's network.

Every sandbox gets a network namespace of its own (bwrap --unshare-net). A no-network task keeps just its own
loopback. A public-network task also gets a user-mode stack, slirp4netns (Debian's `slirp4netns`): a tap device
in the namespace whose traffic slirp4netns turns into ordinary sockets opened on the host, so the task reaches
what the host could reach as an unprivileged program, nothing in the host's own namespace. Then, before anything
of the task runs, the worker (holding the namespace's capabilities, which the task never holds: bwrap.py) narrows
where those sockets may go:

- `--disable-host-loopback`: the gateway address (10.0.2.2) no longer leads to the host's 127.0.0.1;
- routes of type `prohibit` for every private and special-purpose range (10/8, 172.16/12, 192.168/16, the
  link-local 169.254/16 with the cloud metadata address, 100.64/10, ...) and for each address and on-link subnet
  of the host's own interfaces; the kernel refuses a connect() to them with EACCES before a packet leaves;
- only two addresses of slirp4netns's own network stay reachable: its gateway and its DNS forwarder (10.0.2.3,
  which /etc/resolv.conf names inside the sandbox);
- no IPv6 on the tap device (slirp4netns is run without it), and IPv6's private and link-local ranges prohibited.

The task cannot undo any of it: changing routes needs CAP_NET_ADMIN in the namespace, which no sandboxed process
holds (bubblewrap drops it, setpriv clears even the bounding set), and a new user namespace, where it would hold
it again, is refused by the system-call filter (sandbox_seccomp.py). Raw sockets need CAP_NET_RAW.

slirp4netns runs as the sandbox's own host uid where the host's tun device lets it (else see _tun_for_everyone), in
the sandbox's cgroup, with its own seccomp filter
and mount namespace (`--enable-sandbox --enable-seccomp`), and exits when the worker closes its exit pipe (or dies).
When the host cannot give it (no slirp4netns, no user namespaces for it), the sandbox keeps no network at all and
`wall` says so: a task is never given the host's network instead.
"""

from __future__ import annotations

import ipaddress
import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass

GATEWAY, NAMESERVER, DEVICE = "10.0.2.2", "10.0.2.3", "tap0"
RESOLV_CONF = f"nameserver {NAMESERVER}\noptions timeout:2 attempts:2\n".encode()
OWN_NETWORK = "own network (outbound only)"
NO_NETWORK = "no network"
START_TIMEOUT = 10.0
STACK = "slirp4netns"

# Where a task's connections may never go (IANA's special-purpose registries, private and shared ranges).
PROHIBITED = (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "::/0", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b::/96", "2001:db8::/32",
)


class NetworkUnavailable(RuntimeError):
    """The host could not give the sandbox a network of its own; one sentence saying why."""


@dataclass
class Network:
    """What a sandbox's network is (`wall`, for the page) and the stack behind it, if any."""

    wall: str = NO_NETWORK
    _process: subprocess.Popen | None = None
    _exit_fd: int | None = None

    def stop(self) -> None:
        fd, self._exit_fd = self._exit_fd, None
        if fd is not None:
            os.close(fd)  # slirp4netns exits when its exit pipe closes
        process, self._process = self._process, None
        if process is not None:
            try:
                process.wait(2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
            if process.stderr:
                process.stderr.close()


def attach(init_pid: int, as_user: list[str], join, env: dict[str, str]) -> Network:
    """Give the namespace of the sandbox whose init is `init_pid` its outbound-only network. `as_user` is the
    argv prefix that runs a program as the sandbox's host uid, `join` a preexec_fn putting it in the sandbox's
    group. Raises NetworkUnavailable (the namespace then stays without a network)."""
    slirp = shutil.which(STACK)
    if slirp is None:
        raise NetworkUnavailable("slirp4netns is not installed on this worker (apt-get install slirp4netns)")
    ready_read, ready_write = os.pipe()
    exit_read, exit_write = os.pipe()
    argv = [*(as_user if _tun_for_everyone() else []), slirp, "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox",
            "--enable-seccomp", f"--ready-fd={ready_write}", f"--exit-fd={exit_read}",
            f"--userns-path=/proc/{init_pid}/ns/user", str(init_pid), DEVICE]
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, pass_fds=(ready_write, exit_read),
                                   start_new_session=True, env=env, preexec_fn=join)
    except OSError as exc:
        os.close(ready_read)
        os.close(exit_write)
        raise NetworkUnavailable(f"slirp4netns did not start ({exc.strerror})") from None
    finally:
        os.close(ready_write)  # the child holds its own copies
        os.close(exit_read)
    network = Network(OWN_NETWORK, process, exit_write)
    try:
        if not _ready(ready_read, process):
            raise NetworkUnavailable(f"slirp4netns did not come up: {_tail(process)}")
        _narrow(init_pid, env)
    except BaseException:
        network.stop()
        raise
    finally:
        os.close(ready_read)
    return network


def _tun_for_everyone() -> bool:
    """slirp4netns opens /dev/net/tun inside the namespace as whoever it runs as. Hosts where the device is
    root's alone (mode 0600, as here) leave a root worker no choice but to run it as root: then it is confined
    by its own sandbox (it keeps no capability but binding low ports, and sees an empty root)."""
    try:
        return os.stat("/dev/net/tun").st_mode & 0o006 == 0o006
    except OSError:
        return False


def _ready(fd: int, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + START_TIMEOUT
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([fd], [], [], left)
        if readable:
            return os.read(fd, 1) == b"1"
        if process.poll() is not None:
            return False
    return False


def _narrow(init_pid: int, env: dict[str, str]) -> None:
    """The routes and settings that leave only outbound traffic to public addresses, set with the namespace's
    capabilities (entering its user namespace gives them to the worker, never to the task)."""
    commands = [f"route del {_subnet()} dev {DEVICE}",
                f"route add {GATEWAY}/32 dev {DEVICE} scope link",
                f"route add {NAMESERVER}/32 dev {DEVICE} scope link",
                f"route replace default via {GATEWAY} dev {DEVICE}"]
    commands += [f"route replace prohibit {network}" for network in (*PROHIBITED, *host_networks())]
    script = (f"echo 1 > /proc/sys/net/ipv6/conf/{DEVICE}/disable_ipv6 && "
              f"echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 && exec ip -batch -")
    done = subprocess.run(["nsenter", "-t", str(init_pid), "-U", "-n", "--", "sh", "-c", script],
                          input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=15, env=env)
    if done.returncode != 0:
        raise NetworkUnavailable(f"its routes could not be set: {done.stderr.strip()[:300]}")


def _subnet() -> str:
    return str(ipaddress.ip_network(f"{GATEWAY}/24", strict=False))


def host_networks() -> list[str]:
    """The host's own addresses and on-link subnets that no range of PROHIBITED covers (a public address of the
    host's would otherwise lead a task to services the host listens on)."""
    try:
        shown = subprocess.run(["ip", "-j", "addr", "show"], capture_output=True, text=True, timeout=5)
        interfaces = json.loads(shown.stdout or "[]")
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    blocked = [ipaddress.ip_network(n) for n in PROHIBITED]
    found: list[str] = []
    for interface in interfaces if isinstance(interfaces, list) else []:
        for info in interface.get("addr_info", ()) if isinstance(interface, dict) else ():
            try:
                own = ipaddress.ip_interface(f"{info['local']}/{info['prefixlen']}")
            except (KeyError, TypeError, ValueError):
                continue
            for network in (own.network, ipaddress.ip_network(own.ip)):
                if not any(network.version == b.version and network.subnet_of(b) for b in blocked):
                    found.append(str(network))
    return list(dict.fromkeys(found))


def _tail(process: subprocess.Popen) -> str:
    if process.poll() is None:
        return "it did not say it was ready in time"
    text = process.stderr.read(2000).decode("utf-8", "replace") if process.stderr else ""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("WARNING")]
    return (lines[-1] if lines else f"it exited {process.returncode}")[:300]
