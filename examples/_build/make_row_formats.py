"""Writes the bundled datasets that show each row format of the rows adapter. Deterministic output.

    python examples/_build/make_row_formats.py            # rewrite the committed files
    python examples/_build/make_row_formats.py --out DIR  # write them under DIR instead (tests compare the two)

- rlx-examples/tool-calls-nemo-gym: NeMo Gym JSON Lines (`responses_create_params` with tools, `agent_ref`,
  `verifier_metadata` holding the expected call), train and validation splits;
- rlx-examples/trivia-table: a plain table (no framework): train as CSV, test as gzipped CSV;
- rlx-examples/mimo-sample: rows shaped like the MiMo release (verl-style, the instance as JSON text in
  `extra_info.instance_json`), two configs (code, music) in parquet, so refs read `<config>/<split>/<i>`.

Answers are written with the marker "ZX-ANSWER-" so tests can prove none of them reaches a page.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "datasets" / "rlx-examples"

CITIES = [("Lisbon", "Portugal"), ("Osaka", "Japan"), ("Quito", "Ecuador"), ("Tromsø", "Norway"),
          ("Cusco", "Peru"), ("Hobart", "Australia"), ("Tbilisi", "Georgia"), ("Fez", "Morocco"),
          ("Gdańsk", "Poland"), ("Valparaíso", "Chile"), ("Hué", "Vietnam"), ("Bergen", "Norway")]
WEATHER_TOOL = {"type": "function", "name": "get_weather", "description": "Current weather for a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                                 "unit": {"type": "string",
                                                                          "enum": ["celsius", "fahrenheit"]}},
                               "required": ["city"]}}
TIME_TOOL = {"type": "function", "name": "get_local_time", "description": "The local time in a city.",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def nemo_rows() -> dict[str, list[dict]]:
    rows = []
    for i, (city, country) in enumerate(CITIES):
        asks_time = i % 3 == 2
        unit = "fahrenheit" if i % 4 == 1 else "celsius"
        question = (f"What time is it right now in {city}, {country}?" if asks_time
                    else f"Is it warm enough for a walk in {city} ({country}) today? Answer in {unit}.")
        call = {"name": "get_local_time" if asks_time else "get_weather",
                "arguments": {"city": city} if asks_time else {"city": city, "unit": unit}}
        rows.append({
            "id": i,
            "responses_create_params": {
                "instructions": "You are a travel assistant. Use a tool when it helps; call each tool at most once.",
                "input": [{"role": "user", "content": question}],
                "tools": [WEATHER_TOOL, TIME_TOOL], "parallel_tool_calls": False, "temperature": 0.0,
            },
            "agent_ref": {"type": "responses_api_agents", "name": "travel_tools_agent"},
            "task_source": "time" if asks_time else "weather",
            "verifier_metadata": {"expected_action": {**call, "marker": f"ZX-ANSWER-{1000 + i}"},
                                  "grading_mode": "binary"},
        })
    return {"train": rows[:9], "validation": rows[9:]}


TRIVIA = [
    ("Which planet has the shortest year?", "science", "easy", "Mercury"),
    ("What is the chemical symbol for tungsten?", "science", "medium", "W"),
    ("How many bones are in an adult human ear?", "science", "hard", "Six"),
    ("Which river flows through Baghdad?", "geography", "medium", "Tigris"),
    ("What is the capital of Mongolia?", "geography", "easy", "Ulaanbaatar"),
    ("Which strait separates Asia from North America?", "geography", "medium", "Bering"),
    ("Who wrote 'The Left Hand of Darkness'?", "literature", "medium", "Ursula K. Le Guin"),
    ("In which language was 'Don Quixote' first written?", "literature", "easy", "Spanish"),
    ("Which poet wrote 'Ode to a Nightingale'?", "literature", "medium", "John Keats"),
    ("What is 17 squared?", "math", "easy", "289"),
    ("What is the smallest prime above 100?", "math", "medium", "101"),
    ("How many edges does an icosahedron have?", "math", "hard", "30"),
]


def trivia_csv(rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["question", "category", "difficulty", "answer"])
    for i, (question, category, difficulty, _answer) in enumerate(rows):
        writer.writerow([question, category, difficulty, f"ZX-ANSWER-{2000 + i}"])
    return out.getvalue()


def mimo_rows() -> dict[str, list[dict]]:
    code = []
    tasks = [("Make the `timeout` input of the deploy action optional, defaulting to 300 seconds.",
              "pytest -q tests"),
             ("Fix the CSV exporter so quoted fields with newlines survive a round trip.",
              "pytest -q tests/test_csv.py"),
             ("Add a `--dry-run` flag to the migration command that prints the SQL instead of running it.",
              "pytest -q tests/test_cli.py")]
    for i, (statement, command) in enumerate(tasks):
        instance_id = f"format-code-task-{i + 1:06d}"
        instance = {"instance_id": instance_id, "problem_statement": statement,
                    "docker_image": f"{instance_id}:latest", "cwd": "/testbed", "test_command": command,
                    "verifier_timeout_sec": 600, "test_patch": f"diff --git a/t b/t ZX-ANSWER-{3000 + i}",
                    "patch": f"diff --git a/src b/src ZX-ANSWER-{3100 + i}"}
        code.append({"data_source": "mimo_code", "prompt": [{"role": "user", "content": statement}],
                     "ability": "code", "agent_name": "opencode", "reward_model": {"style": "rule"},
                     "extra_info": {"instance_id": instance_id, "instance_json": json.dumps(instance)}})
    music = []
    pieces = [("gK-0101", "reel", 112, "4/4", 32, 2), ("gK-0202", "waltz", 96, "3/4", 48, 3),
              ("gK-0303", "jig", 120, "6/8", 24, 2)]
    for i, (src_id, tag, bpm, meter, bars, voices) in enumerate(pieces):
        prompt = (f"Write a {tag} in ABC notation: {bpm} BPM, {meter} time, {bars} bars, "
                  f"{voices} voices.")
        music.append({"data_source": "mimo_music", "prompt": [{"role": "user", "content": prompt}],
                      "ability": "music", "agent_name": "opencode", "reward_model": {"style": "rule"},
                      "extra_info": {"src_id": src_id, "tag": tag, "bpm": bpm, "meter": meter, "length": bars,
                                     "nvoice_want": voices, "lang": "en",
                                     "reference_abc": f"X:1 ZX-ANSWER-{3200 + i}"}})
    return {"code": code, "music": music}


def _write_parquet(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path, compression="zstd")


def write_all(out: Path) -> list[Path]:
    written = []
    for split, rows in nemo_rows().items():
        path = out / "tool-calls-nemo-gym" / "data" / f"{split}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows))
        written.append(path)
    table = out / "trivia-table" / "data"
    table.mkdir(parents=True, exist_ok=True)
    (table / "train.csv").write_text(trivia_csv(TRIVIA[:9]))
    (table / "test.csv.gz").write_bytes(gzip.compress(trivia_csv(TRIVIA[9:]).encode(), mtime=0))
    written += [table / "train.csv", table / "test.csv.gz"]
    for config, rows in mimo_rows().items():
        path = out / "mimo-sample" / config / "train.parquet"
        _write_parquet(rows, path)
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    for path in write_all(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
