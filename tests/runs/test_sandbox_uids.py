"""Each sandbox has its own process cap: one sandbox's fork bomb leaves every other sandbox free to start and work.

RLIMIT_NPROC counts a real uid's processes machine-wide, so the sandboxes of a root worker each run as a uid of
their own (rlx/runs/sandbox_uids.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import pytest

from rlx.runs.bwrap import Limits, Sandbox
from rlx.runs.sandbox_uids import NoFreeUid, lease_uid
from tests.processes import wait_or_fail

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or os.geteuid() != 0,
                                reason="needs bubblewrap and root (an unprivileged worker's sandboxes are its uid)")

CAP = 40
BOMB = "bomb() { sleep 4242 & bomb & }; bomb; wait"


def processes_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except FileNotFoundError:
                pass
    return count


@pytest.fixture
def sandboxes():
    started: list[Sandbox] = []

    def start() -> Sandbox:
        sandbox = Sandbox(limits=Limits(processes=CAP))
        started.append(sandbox)
        sandbox.start()
        return sandbox

    yield start
    for sandbox in started:
        sandbox.stop()


def test_a_fork_bomb_in_one_sandbox_does_not_stop_another_from_starting_and_forking(sandboxes, tmp_path):
    bombed = sandboxes()
    errors = tmp_path / "bomb.err"
    with open(errors, "wb") as sink:
        bomb = subprocess.Popen(bombed.command(BOMB), stdout=subprocess.DEVNULL, stderr=sink,
                                start_new_session=True, preexec_fn=bombed.limits.apply)
    try:
        wait_or_fail(lambda: b"Resource temporarily unavailable" in errors.read_bytes(),
                   "the bomb to be refused a fork (its sandbox's processes all taken)")

        other = sandboxes()
        outcome = asyncio.run(other.run("for i in 1 2 3; do sleep 0 & done; wait; echo forked", timeout=60))

        assert (outcome.return_code, outcome.stdout.strip()) == (0, "forked"), outcome.stderr
        assert other.uid != bombed.uid
    finally:
        os.killpg(bomb.pid, 9)
        bomb.wait()
    bombed.stop()
    assert processes_of(bombed.uid) == 0, "the bomb outlived its sandbox"


def test_a_uid_is_leased_once_at_a_time_and_free_again_once_released(tmp_path):
    uids = range(1_800_009_000, 1_800_009_002)
    first, second = lease_uid(tmp_path / "leases", uids), lease_uid(tmp_path / "leases", uids)
    assert {first.uid, second.uid} == set(uids)
    with pytest.raises(NoFreeUid):
        lease_uid(tmp_path / "leases", uids)
    first.release()
    assert lease_uid(tmp_path / "leases", uids).uid == first.uid
