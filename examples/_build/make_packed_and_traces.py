"""Writes two bundled datasets: Harbor tasks packed into parquet rows, and a set of agent traces. Deterministic.

    python examples/_build/make_packed_and_traces.py            # rewrite the committed files
    python examples/_build/make_packed_and_traces.py --out DIR  # write them under DIR instead

- rlx-examples/packed-harbor-tasks: the terminal-basics task folders, each packed as tar.gz bytes (split
  `train`), and the science-puzzles ones as base64 text of a zip (split `test`), one task per row, so a packed
  task can be compared page for page with the same task in its folder;
- rlx-examples/agent-traces: JSON Lines of tool-using episodes in OpenAI chat form (`messages` with
  `tool_calls` and `tool` turns), a reward and a success flag, and a `final_answer` / `reference` beside the
  trace (marked "ZX-ANSWER-" so tests can prove neither reaches a page).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

EXAMPLES = Path(__file__).resolve().parent.parent / "datasets" / "rlx-examples"
DEFAULT_OUT = EXAMPLES


def tar_gz(folder: Path) -> bytes:
    """The folder as tar.gz with fixed owners, modes and times, so the bytes never change between runs."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for path in sorted(folder.rglob("*")):
            info = tarfile.TarInfo(path.relative_to(folder).as_posix())
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            else:
                data = path.read_bytes()
                info.size, info.mode = len(data), 0o755 if path.suffix == ".sh" else 0o644
                archive.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def zip_b64(folder: Path) -> str:
    """The folder as a zip inside a top folder of its own name (a common way to pack), as base64 text."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(f"{folder.name}/{path.relative_to(folder).as_posix()}", (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return base64.b64encode(raw.getvalue()).decode()


def packed_rows() -> dict[str, pa.Table]:
    terminal = sorted((EXAMPLES / "terminal-basics" / "tasks").iterdir())
    science = sorted(p.parent for p in (EXAMPLES / "science-puzzles" / "tasks").rglob("task.toml"))
    train = [{"task_id": d.name, "source": "terminal-basics", "task_archive": tar_gz(d)} for d in terminal]
    test = [{"task_id": d.name, "source": "science-puzzles", "task_archive": zip_b64(d)} for d in science]
    return {"train": pa.Table.from_pylist(train, schema=pa.schema([("task_id", pa.string()), ("source", pa.string()),
                                                                     ("task_archive", pa.binary())])),
            "test": pa.Table.from_pylist(test)}


CITIES = [("Lisbon", 21, "sunny"), ("Bergen", 9, "rain"), ("Quito", 17, "cloudy"), ("Hobart", 12, "windy"),
          ("Osaka", 26, "humid"), ("Tbilisi", 19, "clear")]


def trace_rows() -> list[dict]:
    rows = []
    for i, (city, temp, sky) in enumerate(CITIES):
        call_id = f"call_{i:02d}a"
        question = f"Should I pack an umbrella for {city} today? Check the weather first."
        wet = sky == "rain"
        messages = [
            {"role": "system", "content": "You are a travel assistant with tools. Think briefly, then act."},
            {"role": "user", "content": question},
            {"role": "assistant", "content": f"I'll look up the current weather in {city}.",
             "tool_calls": [{"id": call_id, "type": "function",
                             "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"temp_c": temp, "sky": sky})},
        ]
        if i % 2 == 1:  # some episodes make a second call
            second = f"call_{i:02d}b"
            messages += [
                {"role": "assistant", "content": "Let me check the afternoon forecast too.",
                 "tool_calls": [{"id": second, "type": "function",
                                 "function": {"name": "get_forecast",
                                              "arguments": json.dumps({"city": city, "hours": 6})}}]},
                {"role": "tool", "tool_call_id": second, "content": json.dumps({"rain_chance": 80 if wet else 10})},
            ]
        messages.append({"role": "assistant",
                         "content": f"{'Yes' if wet else 'No'}: it is {temp} °C and {sky} in {city}."})
        rows.append({"episode_id": f"ep-{i:03d}", "model": "demo-model-small" if i < 3 else "demo-model-large",
                     "environment": "travel-tools", "messages": messages,
                     "reward": 1.0 if i != 4 else 0.0, "success": i != 4, "num_turns": len(messages),
                     "final_answer": f"ZX-ANSWER-{3000 + i}",
                     "metadata": {"reference": f"ZX-ANSWER-{3100 + i}", "seed": i}})
    return rows


def write_all(out: Path) -> list[Path]:
    written = []
    data = out / "packed-harbor-tasks" / "data"
    data.mkdir(parents=True, exist_ok=True)
    for split, table in packed_rows().items():
        path = data / f"{split}-00000-of-00001.parquet"
        pq.write_table(table, path, compression="zstd")
        written.append(path)
    traces = out / "agent-traces" / "data"
    traces.mkdir(parents=True, exist_ok=True)
    path = traces / "train.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in trace_rows()))
    written.append(path)
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    for written in write_all(parser.parse_args().out):
        print(written)
