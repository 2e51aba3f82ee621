"""Rollouts, eval results and agent traces found in a repository, read as runs of its tasks, never as tasks.

- `detect(path, first)`: which rollout format a file is in, from its name and its first record (formats.py).
- `read_file(path, fmt)`: its traces, bounded (files.py); each a `Trace` of turns, tool calls paired with their
  output, the result (reward, outcome) and what links it to its task.
- `trace_sections(trace)`: one trace as contract blocks, the grader's side withheld (view.py).
"""

from rlx.adapters.rollouts.trace_files import read_file
from rlx.adapters.rollouts.formats import FORMATS, Trace, detect
from rlx.adapters.rollouts.view import trace_sections

__all__ = ["FORMATS", "Trace", "detect", "read_file", "trace_sections"]
