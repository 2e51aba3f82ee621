"""Reading a rollout file's traces, bounded: one trace a line (rollouts, eval results), or the whole file one
trace (a .traj, a session). Never more than MAX_TRACES traces or MAX_FILE_BYTES of a whole file."""

from __future__ import annotations

import json
from pathlib import Path

from rlx.adapters.rollouts import sessions
from rlx.adapters.rollouts.formats import ONE_PER_FILE, Trace, to_trace
from rlx.adapters.rows import readers
from rlx.adapters.rows.datafiles import data_format

MAX_TRACES = 200  # traces of one file listed and opened
MAX_FILE_BYTES = 32 * 1024 * 1024  # a whole-file trace (.traj, a session) larger than this is not read
MAX_SESSION_LINES = 20_000


class RolloutFileError(Exception):
    """The file cannot be read as the rollouts it looked like; the sentence says why."""


def read_file(path: Path, fmt: str) -> list[Trace | None]:
    """The file's traces in order (None for a record that holds no turns), at most MAX_TRACES."""
    if fmt in ONE_PER_FILE:
        return [_whole_trace(path, fmt)]
    try:
        records = readers.read_head(path, data_format(path.name) or "jsonl", MAX_TRACES)
    except readers.DataFileError as exc:
        raise RolloutFileError(str(exc)) from None
    return [to_trace(fmt, r) if isinstance(r, dict) else None for r in records]


def _whole_trace(path: Path, fmt: str) -> Trace | None:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise RolloutFileError(f"{path.name} is {path.stat().st_size / 1e6:.0f} MB, more than this explorer reads "
                               f"as one trace ({MAX_FILE_BYTES // 2**20} MB).")
    if fmt in sessions.FORMATS:
        lines = []
        with open(path, "rb") as fh:
            for n, line in enumerate(fh):
                if n >= MAX_SESSION_LINES:
                    break
                try:
                    lines.append(json.loads(line))
                except (ValueError, RecursionError):
                    continue  # a session line that is not JSON: the rest still reads
        messages, model = sessions.messages_of(fmt, lines)
        trace = to_trace("traces", {"messages": messages})
        if trace is not None:
            trace.model = model
            trace.record = {"lines": lines[:1]}
        return trace
    try:
        record = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as exc:
        raise RolloutFileError(f"{path.name} is not valid JSON ({str(exc)[:120]}).") from None
    return to_trace(fmt, record)
