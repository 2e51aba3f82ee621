"""Writes rlx-examples/mimo-release, a tiny synthetic release laid out like Xiaomi's MiMo RL release, and its
Harbor conversion rlx-examples/mimo-release-harbor. Deterministic output.

    python examples/_build/make_mimo_release.py            # rewrite the committed files
    python examples/_build/make_mimo_release.py --out DIR  # write them under DIR instead (tests compare the two)

The release: code.parquet, cyber.parquet, webdev.parquet, music.parquet, general/train.parquet (verl-shaped rows,
two per domain), image-mapping.jsonl, and one general/envs/<task_id>/ folder with an MCP system (tools/*.py), a
SQLite database made here, a workspace file, verifier_meta.json and a verify script. The Harbor conversion holds
three runnable tasks (a Code, a Music and a General one) whose task.toml metadata names the release's instance id;
the General one is model-graded (its verifier calls the judge at RLX_JUDGE_URL, one call per judged rubric check).

Answers (fixes, hidden test bodies, PoCs, pass anchors, reference scores) are written with the marker
"ZX-ANSWER-" so tests can prove none of them reaches a page. Every row is invented; none is from the release.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from mimo_webdev import WEBDEV_JUDGE, WEBDEV_SOLUTION, WEBDEV_TEST

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "datasets" / "rlx-examples"
RELEASE = "mimo-release"
TWIN = "mimo-release-harbor"
GENERAL_ID = "s3k_1001_accounting_en_t3_rl_1"


def _row(domain: str, prompt: str, extra: dict) -> dict:
    return {"data_source": f"mimo_{domain}", "prompt": [{"role": "user", "content": prompt}],
            "ability": domain, "agent_name": "mimo_agent", "reward_model": {"style": "rule"},
            "extra_info": extra}


def code_rows() -> list[dict]:
    tasks = [("format-code-task-000101", "Make the `retries` option of the HTTP client accept 0, meaning no retry, "
              "instead of raising ValueError.", "tests/test_retry.py", "python -m pytest -q tests/test_retry.py"),
             ("format-code-task-000102", "The `slugify` helper drops digits at the start of a title. Keep them, "
              "and collapse repeated dashes.", "spec/slugify.test.js", "npx jest spec/slugify.test.js")]
    rows = []
    for n, (instance_id, statement, test_file, command) in enumerate(tasks):
        instance = {"instance_id": instance_id, "problem_statement": statement,
                    "docker_image": f"{instance_id}:latest", "cwd": "/testbed", "test_command": command,
                    "verifier_timeout_sec": 900,
                    "test_patch": f"diff --git a/{test_file} b/{test_file}\n--- a/{test_file}\n+++ b/{test_file}\n"
                                  f"@@ -1,2 +1,3 @@\n+# expects ZX-ANSWER-41{n:02d}\n",
                    "patch": f"diff --git a/src/main b/src/main\n+ZX-ANSWER-42{n:02d}\n"}
        rows.append(_row("code", statement, {"instance_id": instance_id, "instance_json": json.dumps(instance)}))
    return rows


def cyber_rows() -> list[dict]:
    bugs = [("arvo_41001", "AddressSanitizer: heap-buffer-overflow in function `png_read_row` in file "
             "`pngread.c`", "libpng"),
            ("arvo_41002", "MemorySanitizer: use-of-uninitialized-value in function `xmlParseCharRef` in file "
             "`parser.c`", "libxml2")]
    rows = []
    for n, (instance_id, description, project) in enumerate(bugs):
        prompt = (f"The project {project} in /src has this crash report:\n\n{description}\n\nWrite an input "
                  "file that reproduces it and submit it as your proof of concept.")
        instance = {"instance_id": instance_id, "description": description, "project": project,
                    "docker_image": f"arvo-v1-{instance_id.split('_')[1]}", "cwd": "/src",
                    "poc": f"ZX-ANSWER-43{n:02d}", "fix_patch": f"ZX-ANSWER-44{n:02d}"}
        rows.append(_row("cyber", prompt, {"instance_id": instance_id, "instance_json": json.dumps(instance)}))
    return rows


def webdev_rows() -> list[dict]:
    briefs = [("dasyn_7_1", "Build a one-page site for a harbour-side bakery: hero photo, opening hours, a menu "
               "grid and a map section. Use React and Tailwind; warm, rustic style."),
              ("dasyn_7_2", "Design a landing page for a budgeting app for students, with pricing tiers, "
               "testimonials and a sign-up form. Plain HTML and CSS, minimal style.")]
    rows = []
    for n, (instance_id, brief) in enumerate(briefs):
        instance = {"instance_id": instance_id, "brief": brief, "cwd": "/workspace",
                    "docker_image": "webdev-rl-opensource:v2", "reference_screenshot": f"ZX-ANSWER-45{n:02d}"}
        rows.append(_row("webdev", brief, {"instance_id": instance_id, "instance_json": json.dumps(instance)}))
    return rows


def music_rows() -> list[dict]:
    pieces = [("gK-0768", "英式乡村舞曲", "写一首E大调、129 BPM、4/4拍、56小节、三声部的英式乡村舞曲，用ABC记谱", 129, "4/4", 56, 3,
               "zh"),
              ("gK-0812", "waltz", "Write a waltz in D minor in ABC notation: 84 BPM, 3/4 time, 32 bars, two voices.",
               84, "3/4", 32, 2, "en")]
    rows = []
    for n, (src_id, tag, prompt, bpm, meter, bars, voices, lang) in enumerate(pieces):
        rows.append(_row("music", prompt, {"src_id": src_id, "tag": tag, "bpm": bpm, "meter": meter,
                                           "length": bars, "nvoice_want": voices, "lang": lang, "index": n,
                                           "reference_abc": f"X:1 ZX-ANSWER-46{n:02d}"}))
    return rows


def general_rows() -> list[dict]:
    tasks = [(GENERAL_ID, "Reconcile the Q3 ledger: find every invoice in the ledger system that has no matching "
              "payment, total them by customer, and write the result to /workspace/out/unpaid.md."),
             ("s3k_1002_legal_zh_t2_rl_1", "请检查合同系统中所有将在下个月到期的合同，并起草一份续约提醒清单。")]
    return [_row("general", prompt, {"instance_id": task_id, "dataset_type": "workplace"})
            for task_id, prompt in tasks]


TOOL_SERVER = '''"""Ledger system: the accounting database this task's agent works with, served over MCP."""
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("ledger")


@mcp.tool()
def list_invoices(customer: str | None = None, status: str = "open", limit: int = 50) -> list[dict]:
    """Invoices, newest first, optionally for one customer."""
    ...


@mcp.tool()
def get_payments(invoice_id: int) -> list[dict]:
    """Payments recorded against one invoice."""
    ...


@mcp.tool()
async def customer_balance(customer: str) -> float:
    """What a customer owes today."""
    ...


if __name__ == "__main__":
    mcp.run()
'''

VERIFY = '''"""Scores the deliverable against verifier_meta.json: code checks run here, the rest go to a text judge."""
import json

EXPECTED_TOTAL = "ZX-ANSWER-4800"


def main():
    meta = json.load(open("verifier_meta.json"))
    return [item["id"] for item in meta["items"]]
'''

VERIFIER_META = {
    "task_id": GENERAL_ID,
    "judge_prompt": ("You grade one checkpoint of a workplace task. Read only the extracted deliverable below. "
                     "Score 1 if the checkpoint is fully met, else 0. Reply as JSON: "
                     "{\"results\": {\"<check id>\": {\"score\": 0 or 1, \"why\": \"<25 characters\"}}}"),
    "items": [
        {"id": "c1", "tier": "critical", "method": "llm_judge", "weight": 3,
         "question": "Does unpaid.md list every invoice without a matching payment?",
         "pass_anchor": "ZX-ANSWER-4701"},
        {"id": "c2", "tier": "important", "method": "llm_judge", "weight": 2,
         "question": "Are the unpaid totals grouped by customer and correct?",
         "pass_anchor": "ZX-ANSWER-4702"},
        {"id": "c3", "tier": "sanity", "method": "code", "weight": 1,
         "question": "Was /workspace/out/unpaid.md written?", "check_code": "ZX-ANSWER-4703",
         "pass_anchor": "ZX-ANSWER-4704"},
    ],
}

WORKSPACE_NOTE = """# Q3 close: notes from the controller

- The ledger system holds every invoice and payment of the quarter.
- Partial payments count as unpaid for this report.
- Group the result by customer, largest total first.
"""


def write_ledger_db(path: Path) -> None:
    """The general task's SQLite database: customers, invoices and payments (a few rows each)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
        CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, issued TEXT, amount REAL);
        CREATE TABLE payments (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL, paid TEXT, amount REAL);
        INSERT INTO customers VALUES (1, 'Harbour Foods', 'PT'), (2, 'Kettle & Co', 'IE'), (3, 'Nordlys AS', 'NO');
        INSERT INTO invoices VALUES (1, 1, '2025-07-03', 1200.0), (2, 1, '2025-08-11', 480.0),
            (3, 2, '2025-07-19', 950.0), (4, 3, '2025-09-02', 2100.0), (5, 3, '2025-09-20', 300.0);
        INSERT INTO payments VALUES (1, 1, '2025-07-30', 1200.0), (2, 3, '2025-08-15', 500.0),
            (3, 4, '2025-09-28', 2100.0);
    """)
    db.commit()
    db.execute("VACUUM")
    db.close()


def write_parquet(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path, compression="zstd")


def write_release(out: Path) -> list[Path]:
    root = out / RELEASE
    written = []
    for name, rows in (("code.parquet", code_rows()), ("cyber.parquet", cyber_rows()),
                       ("webdev.parquet", webdev_rows()), ("music.parquet", music_rows()),
                       ("general/train.parquet", general_rows())):
        write_parquet(rows, root / name)
        written.append(root / name)
    images = [{"task_id": GENERAL_ID, "image": "xiaomimimo/mimo-v2.6-rl-oss:general-accounting"},
              {"task_id": "s3k_1002_legal_zh_t2_rl_1", "image": "xiaomimimo/mimo-v2.6-rl-oss:general-legal"}]
    (root / "image-mapping.jsonl").write_text("".join(json.dumps(i) + "\n" for i in images))
    env = root / "general" / "envs" / GENERAL_ID
    files = {"tools/ledger_server.py": TOOL_SERVER, "workspace/controller_notes.md": WORKSPACE_NOTE,
             "verifier_meta.json": json.dumps(VERIFIER_META, indent=2, ensure_ascii=False) + "\n",
             "verify.py": VERIFY}
    for rel, text in files.items():
        (env / rel).parent.mkdir(parents=True, exist_ok=True)
        (env / rel).write_text(text)
        written.append(env / rel)
    write_ledger_db(env / "db" / "ledger.db")
    written += [root / "image-mapping.jsonl", env / "db" / "ledger.db"]
    return written


HTTP_CLIENT = '''"""A tiny HTTP client's options (the code the converted task's agent fixes)."""


def make_client(base_url: str, retries: int = 3) -> dict:
    if retries < 1:
        raise ValueError("retries must be at least 1")
    return {"base_url": base_url, "retries": retries}
'''

CODE_TEST = """#!/usr/bin/env bash
# Converted from the release's hidden tests: retries=0 means no retry; negative counts are still refused.
mkdir -p /logs/verifier
if python3 - <<'PY'
import sys
sys.path.insert(0, "/app")
import http_client
assert http_client.make_client("https://x", retries=0)["retries"] == 0
assert http_client.make_client("https://x", retries=2)["retries"] == 2
try:
    http_client.make_client("https://x", retries=-1)
except ValueError:
    pass
else:
    raise SystemExit("a negative retry count was accepted")
PY
then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""

CODE_SOLUTION = """#!/usr/bin/env bash
# Reference fix (ZX-ANSWER-4901): accept 0, refuse only negative counts.
set -euo pipefail
sed -i 's/if retries < 1:/if retries < 0:/; s/at least 1/0 or more/' /app/http_client.py
"""

MUSIC_TEST = """#!/usr/bin/env bash
# Converted from the release's symbolic scorer, reduced to its headers: metre, tempo, length and voices.
mkdir -p /logs/verifier
score=/app/waltz.abc
if [ -f "$score" ] && grep -q '^M:3/4' "$score" && grep -q '^Q:1/4=84' "$score" \\
   && [ "$(grep -c '^V:' "$score")" -ge 2 ] && [ "$(grep -o '|' "$score" | wc -l)" -ge 64 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

MUSIC_SOLUTION = """#!/usr/bin/env bash
# Reference score (ZX-ANSWER-4902): two voices of 32 bars each.
set -euo pipefail
bars=$(printf 'D2 F2 A2 |%.0s' $(seq 32))
low=$(printf 'D,6 |%.0s' $(seq 32))
printf 'X:1\\nT:Waltz\\nM:3/4\\nQ:1/4=84\\nL:1/8\\nK:Dm\\n' > /app/waltz.abc
printf 'V:1\\n%s\\nV:2 clef=bass\\n%s\\n' "$bars" "$low" >> /app/waltz.abc
"""

GENERAL_JUDGE = r'''"""Grades /workspace/out/unpaid.md against the release's rubric (rubric.json, from its verifier_meta.json), as its
General verifier does: the code check here, each judged check one call to the judge model (RLX_JUDGE_URL, an
OpenAI-compatible chat-completions API reached inside the sandbox) with the release's judge prompt, scored 0 or 1;
reward = sum(weight * score) / sum(weight). A judge that cannot be reached, or answers without a score, leaves no
reward: the run is not scored, never 0."""
import json
import os
import sys
import urllib.request

DELIVERABLE = "/workspace/out/unpaid.md"
EVIDENCE_LIMIT = 20000  # characters of the deliverable a judge reads, as in the release


def judged(check, evidence, rubric):
    question = (f"Checkpoint {check['id']}: {check['question']}\nWhat passes: {check['pass_anchor']}\n\n"
                f"Deliverable (unpaid.md):\n{evidence}")
    body = {"model": os.environ["RLX_JUDGE_MODEL"], "temperature": 0,
            "messages": [{"role": "system", "content": rubric["judge_prompt"]},
                         {"role": "user", "content": question}]}
    request = urllib.request.Request(os.environ["RLX_JUDGE_URL"].rstrip("/") + "/chat/completions",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        text = json.load(answer)["choices"][0]["message"]["content"]
    verdict = json.loads(text[text.find("{"):text.rfind("}") + 1])["results"][check["id"]]
    if verdict["score"] not in (0, 1):
        raise ValueError(f"a score of {verdict['score']!r}")
    return verdict["score"], str(verdict.get("why", ""))[:25]


def main():
    rubric = json.load(open("/tests/rubric.json"))
    written = os.path.isfile(DELIVERABLE) and os.path.getsize(DELIVERABLE) > 0
    evidence = open(DELIVERABLE, errors="replace").read()[:EVIDENCE_LIMIT] if written else ""
    total = earned = 0
    for check in rubric["items"]:
        if check["method"] == "code":
            score, why = (1, "written") if written else (0, "not written")
        elif not written:
            score, why = 0, "evidence not extracted"
        else:
            try:
                score, why = judged(check, evidence, rubric)
            except Exception as exc:
                print(f"{check['id']}: the judge gave no score ({type(exc).__name__}), so the run is not scored")
                sys.exit(1)
        print(f"{check['id']} ({check['method']}, weight {check['weight']}): {score} {why}")
        total += check["weight"]
        earned += check["weight"] * score
    with open("/logs/verifier/reward.txt", "w") as out:
        out.write(f"{earned / total:.4f}\n")


main()
'''

GENERAL_TEST = """#!/usr/bin/env bash
# Converted from the release's General verifier: a weighted rubric whose judged checks a judge model grades.
mkdir -p /logs/verifier
exec /usr/bin/python3 /tests/judge.py
"""

GENERAL_SOLUTION = r'''#!/usr/bin/env bash
# Reference report (ZX-ANSWER-4903): every invoice not fully paid, totalled by customer.
set -euo pipefail
mkdir -p /workspace/out
/usr/bin/python3 - <<'PY'
import sqlite3
db = sqlite3.connect("/workspace/db/ledger.db")
rows = db.execute("SELECT c.name, i.id, i.amount FROM invoices i JOIN customers c ON c.id = i.customer_id "
                  "WHERE i.amount > (SELECT COALESCE(SUM(p.amount), 0) FROM payments p WHERE p.invoice_id = i.id)"
                  ).fetchall()
totals = {}
for name, _, amount in rows:
    totals[name] = totals.get(name, 0) + amount
lines = ["# Unpaid invoices, Q3", "", "| Customer | Invoices | Total |", "|---|---|---|"]
for name, total in sorted(totals.items(), key=lambda item: -item[1]):
    ids = ", ".join(str(i) for n, i, _ in rows if n == name)
    lines.append(f"| {name} | {ids} | {total:.2f} |")
open("/workspace/out/unpaid.md", "w").write("\n".join(lines) + "\n")
PY
'''

GENERAL_JUDGE_ENV = ('\n[verifier.env]\nRLX_JUDGE_URL = "${RLX_JUDGE_URL}"\n'
                     'RLX_JUDGE_MODEL = "${RLX_JUDGE_MODEL}"\n')

# (folder, release instance, category, the converted instruction's closing lines, files, Dockerfile lines)
TWIN_TASKS = [
    ("code-000101", "format-code-task-000101", "code", code_rows()[0]["prompt"][0]["content"],
     ["The repository is in /app; the client's options are in `http_client.py`.",
      "`make_client(base_url, retries=0)` must return a client that never retries.",
      "Negative retry counts must still raise ValueError.",
      "Hidden tests check the behaviour after you finish."],
     {"environment/http_client.py": HTTP_CLIENT, "tests/test.sh": CODE_TEST, "solution/solve.sh": CODE_SOLUTION},
     "COPY http_client.py /app/http_client.py\n"),
    ("music-gk-0812", "gK-0812", "music", music_rows()[1]["prompt"][0]["content"],
     ["Write the score to /app/waltz.abc.",
      "Give the tempo as `Q:1/4=84` and the metre as `M:3/4`.",
      "Write each voice under its own `V:` line.",
      "A symbolic scorer reads the headers, the bars and the voices."],
     {"tests/test.sh": MUSIC_TEST, "solution/solve.sh": MUSIC_SOLUTION}, ""),
    ("general-s3k-1001", GENERAL_ID, "general", general_rows()[0]["prompt"][0]["content"],
     ["The ledger system's database is /workspace/db/ledger.db (SQLite: customers, invoices, payments); the "
      "release serves it over MCP, which this conversion replaces with the file itself.",
      "The controller's notes are in /workspace/controller_notes.md.",
      "A judge model grades the report against a weighted rubric of three checks."],
     {"environment/controller_notes.md": WORKSPACE_NOTE, "tests/test.sh": GENERAL_TEST,
      "tests/judge.py": GENERAL_JUDGE, "solution/solve.sh": GENERAL_SOLUTION,
      "tests/rubric.json": json.dumps(VERIFIER_META, indent=2, ensure_ascii=False) + "\n"},
     "COPY controller_notes.md /workspace/controller_notes.md\nCOPY ledger.db /workspace/db/ledger.db\n"),
    ("webdev-dasyn-7-2", "dasyn_7_2", "webdev", webdev_rows()[1]["prompt"][0]["content"],
     ["Write the page to /workspace/index.html; it is opened as a file.",
      "There is no network: keep styles and pictures in the page or in files beside it.",
      "A vision judge grades a screenshot of it against the brief: layout, typography, colour, whitespace, "
      "content, the brief itself and the page's assets."],
     {"tests/test.sh": WEBDEV_TEST, "tests/render_judge.py": WEBDEV_JUDGE, "solution/solve.sh": WEBDEV_SOLUTION,
      "tests/brief.md": webdev_rows()[1]["prompt"][0]["content"] + "\n"},
     "RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-dejavu-core \\\n"
     "    && rm -rf /var/lib/apt/lists/*\n"),
]
JUDGED = ("general", "webdev")  # graded by a judge model the run is given (rlx/runs/judges.py)
WORKDIRS = {"general": "/workspace", "webdev": "/workspace"}  # where the release's tasks work; the others in /app
MEMORY_MB = {"webdev": 2048}  # Chromium renders the page in the verifier


def write_twin(out: Path) -> list[Path]:
    root = out / TWIN
    written = []
    for folder, instance_id, category, prompt, notes, extra_files, copy in TWIN_TASKS:
        task = root / folder
        files = {
            "task.toml": (f'schema_version = "1.4"\n\n[task]\nname = "rlx-examples/{folder}"\n'
                          f'description = "The MiMo-style release task {instance_id}, converted to Harbor."\n\n'
                          f'[metadata]\nauthor_name = "RLX Examples"\ncategory = "{category}"\n'
                          f'mimo_instance_id = "{instance_id}"\n\n[verifier]\n'
                          f'timeout_sec = {600.0 if category in JUDGED else 60.0}\n\n'
                          f'[agent]\ntimeout_sec = 600.0\n\n[environment]\ncpus = 1\n'
                          f'memory_mb = {MEMORY_MB.get(category, 512)}\n'
                          f'network_mode = "no-network"\n'
                          + (GENERAL_JUDGE_ENV if category in JUDGED else "")),
            "instruction.md": prompt + "\n\n" + "\n".join(f"- {line}" for line in notes) + "\n",
            "environment/Dockerfile": f"FROM python:3.12-slim\n\nWORKDIR {WORKDIRS.get(category, '/app')}\n{copy}",
            **extra_files,
        }
        for rel, text in files.items():
            (task / rel).parent.mkdir(parents=True, exist_ok=True)
            (task / rel).write_text(text)
            written.append(task / rel)
        if category == "general":
            write_ledger_db(task / "environment" / "ledger.db")
            written.append(task / "environment" / "ledger.db")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    out = parser.parse_args().out
    for path in write_release(out) + write_twin(out):
        print(path)


if __name__ == "__main__":
    main()
