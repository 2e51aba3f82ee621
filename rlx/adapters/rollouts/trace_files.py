"""Reading a rollout file's traces, bounded: one trace a line (rollouts, eval results), or the whole file one
trace (a .traj, a session). Never more than MAX_TRACES traces or MAX_FILE_BYTES of a whole file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from rlx.adapters.rollouts import session_logs
from rlx.adapters.rollouts.formats import ONE_PER_FILE, Trace, to_trace
from rlx.adapters.rows import readers
from rlx.adapters.rows.datafiles import data_format

MAX_TRACES = 200  # traces of one file listed and opened
MAX_FILE_BYTES = 32 * 1024 * 1024  # a whole-file trace (.traj, a session) larger than this is not read
MAX_SESSION_LINES = 20_000
MAX_ZIP_MEMBERS = 20_000  # members of an Inspect log looked at


class RolloutFileError(Exception):
    """The file cannot be read as the rollouts it looked like; the sentence says why."""


def read_file(path: Path, fmt: str) -> list[Trace | None]:
    """The file's traces in order (None for a record that holds no turns), at most MAX_TRACES."""
    if fmt in ONE_PER_FILE:
        return [_whole_trace(path, fmt)]
    if fmt == "inspect":
        samples, model = _inspect_samples(path)
        traces = [to_trace(fmt, sample) for sample in samples]
        for trace in traces:
            if trace is not None and model:
                trace.model = trace.model or model
        return traces
    try:
        records = readers.read_head(path, data_format(path.name) or "jsonl", MAX_TRACES)
    except readers.DataFileError as exc:
        raise RolloutFileError(str(exc)) from None
    return [to_trace(fmt, r) if isinstance(r, dict) else None for r in records]


def _whole_trace(path: Path, fmt: str) -> Trace | None:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise RolloutFileError(f"{path.name} is {path.stat().st_size / 1e6:.0f} MB, more than this explorer reads "
                               f"as one trace ({MAX_FILE_BYTES // 2**20} MB).")
    if fmt in session_logs.FORMATS:
        lines = []
        with open(path, "rb") as fh:
            for n, line in enumerate(fh):
                if n >= MAX_SESSION_LINES:
                    break
                try:
                    lines.append(json.loads(line))
                except (ValueError, RecursionError):
                    continue  # a session line that is not JSON: the rest still reads
        messages, model = session_logs.messages_of(fmt, lines)
        trace = to_trace("traces", {"messages": messages})
        if trace is not None:
            trace.model = model
            trace.record = {"lines": lines[:1]}
        return trace
    record = _json(path)
    if fmt == "harbor-trial":  # the trial's result.json (fetched beside it by the caller) holds its reward
        result = path.parent.parent / "result.json"
        record = {"trajectory": record, "result": _json(result) if result.is_file() else None}
    return to_trace(fmt, record)


def _json(path: Path):
    if path.stat().st_size > MAX_FILE_BYTES:
        raise RolloutFileError(f"{path.name} is larger than this explorer reads ({MAX_FILE_BYTES // 2**20} MB).")
    try:
        return json.loads(path.read_bytes())
    except (ValueError, RecursionError) as exc:
        raise RolloutFileError(f"{path.name} is not valid JSON ({str(exc)[:120]}).") from None


def _inspect_samples(path: Path) -> tuple[list, str | None]:
    """An Inspect `.eval` log's samples (a zip: samples/<id>_epoch_<n>.json), in the order the log lists them,
    each member read within MAX_FILE_BYTES (a member that is not JSON is None in its place), and the model its
    header names."""
    try:
        with zipfile.ZipFile(path) as log:
            model = _inspect_model(log)
            members = [m for m in log.infolist()[:MAX_ZIP_MEMBERS]
                       if m.filename.startswith("samples/") and m.filename.endswith(".json")]
            samples = []
            for member in members[:MAX_TRACES]:
                if member.file_size > MAX_FILE_BYTES:
                    samples.append(None)
                    continue
                try:
                    samples.append(json.loads(log.read(member)))
                except (ValueError, RecursionError, zipfile.BadZipFile, OSError):
                    samples.append(None)
            return samples, model
    except (zipfile.BadZipFile, OSError) as exc:
        raise RolloutFileError(f"{path.name} is not an Inspect log this explorer can open ({exc}).") from None


def _inspect_model(log: zipfile.ZipFile) -> str | None:
    try:
        member = log.getinfo("header.json")
        if member.file_size > MAX_FILE_BYTES:
            return None
        header = json.loads(log.read(member))
    except (KeyError, ValueError, RecursionError, zipfile.BadZipFile, OSError):
        return None
    model = header.get("eval", {}).get("model") if isinstance(header, dict) and isinstance(header.get("eval"), dict) \
        else None
    return model if isinstance(model, str) else None
