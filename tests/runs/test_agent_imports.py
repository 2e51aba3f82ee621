"""What a run's work horse imports before its sandbox starts. litellm costs several seconds of CPU to import (8 s
on a loaded 2-core machine, with its bytecode cached), and RQ forks a fresh work horse per job, so an agent whose
class pulled it in paid that on every run before its first step. Only mini-swe-agent's Harbor class needs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rlx.runs.installed_config import CLASSES

PROBE = """
import importlib, sys
import rlx.runs.runner, rlx.runs.installed_config
module, _, name = {path!r}.partition(":")
getattr(importlib.import_module(module), name)  # as Harbor loads the agent's class from its import path
print("litellm" in sys.modules)
"""


@pytest.mark.parametrize("agent", sorted(set(CLASSES) - {"mini-swe-agent"}))
def test_an_installed_agents_run_does_not_import_litellm_before_its_sandbox(agent):
    probe = subprocess.run([sys.executable, "-c", PROBE.format(path=CLASSES[agent])], capture_output=True,
                           text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.strip() == "False", f"{agent}'s class imports litellm"
