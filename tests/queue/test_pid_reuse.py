"""Cleanups in the tests kill only the processes they saw: once this host's pids wrap (pid_max 32768, reached while
the suite runs), a remembered pid may belong to an unrelated process, which must be left running."""

from __future__ import annotations

import signal
import subprocess

from tests.processes import remember, signal_if_same, still_running


def test_a_process_that_took_a_remembered_pid_is_left_alone_and_the_one_seen_is_killed():
    process = subprocess.Popen(["sleep", "60"])
    try:
        [(pid, start)] = remember([process.pid]).items()
        earlier = start - 1  # the same pid, as an earlier process held it before the pids wrapped
        assert not still_running(pid, earlier)
        assert signal_if_same(pid, earlier) is False
        assert process.poll() is None and still_running(pid, start)

        assert signal_if_same(pid, start) is True
        assert process.wait(10) == -signal.SIGKILL
        assert not still_running(pid, start)
    finally:
        process.kill()
        process.wait()


def test_a_process_gone_and_reaped_is_not_signalled():
    process = subprocess.Popen(["true"])
    [(pid, start)] = remember([process.pid]).items()  # a zombie until reaped: its start is still there
    process.wait()
    assert signal_if_same(pid, start) is False
