"""The system calls a sandboxed process may not make: the ones that change its walls or reach past them.

A sandboxed process already holds no capabilities (bwrap --cap-drop ALL for its init, setpriv for every later
command), so most of these would fail anyway; the filter is the second wall, and the only one for calls that need
no capability: a new user namespace (where the caller would hold every capability again), ptrace and
process_vm_* on its neighbours, keyrings shared across the host, eBPF, perf, userfaultfd.

The filter is built with libseccomp (pyseccomp, a ctypes binding to the host's libseccomp2) rather than written
as BPF by hand: it knows each architecture's syscall numbers and the argument checks. Two ways in:
- `bpf_file()`: the compiled program, handed to `bwrap --seccomp FD` for the sandbox's init;
- `load()`: in a later command's preexec_fn, before `nsenter` runs; nsenter still needs setns and chroot, which
  are left open (without capabilities they do nothing for a sandboxed process).
"""

from __future__ import annotations

import errno
import os
import tempfile

import pyseccomp as seccomp

# Calls refused with EPERM, as the kernel itself answers a process without the capability.
REFUSED = (
    # mounts, old and new API: the walls stay where the worker put them
    "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel surfaces shared with the host or other sandboxes
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "quotactl", "syslog", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
)
_NEW_USERNS = 0x10000000  # CLONE_NEWUSER


def _filter() -> seccomp.SyscallFilter:
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED:
        try:
            rules.add_rule(refuse, name)
        except (RuntimeError, ValueError):  # a call this architecture (or libseccomp) does not know
            continue
    # A new user namespace gives its creator every capability inside it: refused, by flag, for unshare and clone.
    rules.add_rule(refuse, "unshare", seccomp.Arg(0, seccomp.MASKED_EQ, _NEW_USERNS, _NEW_USERNS))
    rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _NEW_USERNS, _NEW_USERNS))
    # clone3 passes its flags in memory, which a filter cannot read: ENOSYS makes glibc fall back to clone.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    return rules


def bpf_file() -> int:
    """A file descriptor (unlinked temp file, at offset 0) holding the compiled filter, for `bwrap --seccomp`.
    The caller closes it."""
    handle = tempfile.TemporaryFile()
    _filter().export_bpf(handle)
    handle.flush()
    fd = os.dup(handle.fileno())
    handle.close()
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def load() -> None:
    """Install the filter on this process (a preexec_fn: it is inherited by everything the command starts)."""
    _filter().load()
