"""The two datasets of the real-rows benchmark, written as parquet into a FolderSource tree, the same bytes on every
run (seeded; no clock, no hash randomisation):

- `SWE_ID`: SWE-bench's shape. 2,300 rows with SWE-bench's own columns (instance_id, repo, base_commit,
  problem_statement of about 4,000 characters, a gold `patch` of about 100 KB, a `test_patch`, FAIL_TO_PASS and
  PASS_TO_PASS as JSON text, hints_text, version, created_at, environment_setup_commit), in row groups of
  1,000 rows (three) and pyarrow's default compression (snappy), as `datasets` writes a split this size.
- `PROMPTS_ID`: 100,000 rows of prompts (id, prompt of 300-2,000 characters, source, difficulty, answer) in 100
  row groups of 1,000 rows: a table nobody described, read by the generic processor.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from scripts.synth_catalog import SEED, ZipfPicker, _sha, build_vocabulary

SWE_ID = "real-rows/swe-shape"
SWE_ROWS = 2_300
SWE_GROUP = 1_000  # rows per row group, as `datasets` writes them: about 125 MB of cells in each
PATCH_BYTES = 100_000
PROMPT_CHARS = 4_000
PROMPTS_ID = "real-rows/prompts-100k"
PROMPTS_ROWS = 100_000
PROMPTS_GROUP = 1_000
REPOS = ["django/django", "sympy/sympy", "scikit-learn/scikit-learn", "sphinx-doc/sphinx", "matplotlib/matplotlib",
         "pytest-dev/pytest", "astropy/astropy", "pydata/xarray", "psf/requests", "pylint-dev/pylint"]
# Every gold patch carries this line, so a page that shows it is easy to catch.
PATCH_MARK = "+# gold fix marker: the grader's answer"


def write_all(source: Path, seed: int = SEED) -> dict[str, Path]:
    return {SWE_ID: write_swe_shape(source, seed=seed), PROMPTS_ID: write_prompts(source, seed=seed)}


def _repo(source: Path, repo_id: str, title: str, seed: int) -> Path:
    repo = source / "datasets" / repo_id
    (repo / "data").mkdir(parents=True, exist_ok=True)
    (repo / "README.md").write_text(f"---\npretty_name: {title}\n---\n# {title}\n\nSynthetic rows for the real-rows "
                                    "benchmark.\n")
    (repo / ".hub.json").write_text(json.dumps({"sha": _sha(seed, repo_id), "likes": 1, "downloads": 1}))
    return repo


def write_swe_shape(source: Path, rows: int = SWE_ROWS, seed: int = SEED) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    words = ZipfPicker(build_vocabulary(rng), s=1.1)
    code = [_code_line(rng, words) for _ in range(20_000)]  # drawn once: drawing every line takes minutes
    phrases = [" ".join(words.many(rng, rng.randint(8, 30))).capitalize() + "." for _ in range(3_000)]
    repo = _repo(source, SWE_ID, "SWE-bench shape", seed)
    path = repo / "data" / "test-00000-of-00001.parquet"
    with pq.ParquetWriter(path, _swe_schema(pa)) as writer:
        for start in range(0, rows, SWE_GROUP):
            batch = [_swe_row(rng, i, code, phrases) for i in range(start, min(rows, start + SWE_GROUP))]
            writer.write_table(pa.Table.from_pylist(batch, schema=_swe_schema(pa)))
    return repo


def _swe_schema(pa):
    names = ("repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement", "hints_text",
             "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS", "environment_setup_commit")
    return pa.schema([(name, pa.string()) for name in names])


def _swe_row(rng: random.Random, i: int, code: list[str], phrases: list[str]) -> dict:
    repo = REPOS[i % len(REPOS)]
    tests = [f"tests/test_{rng.choice(code).split()[-1][:12]}.py::test_{n}" for n in range(rng.randint(1, 40))]
    return {
        "repo": repo, "instance_id": f"{repo.replace('/', '__')}-{10_000 + i}",
        "base_commit": "%040x" % rng.getrandbits(160),
        "patch": _diff(rng, code, PATCH_BYTES, extra=PATCH_MARK),
        "test_patch": _diff(rng, code, PATCH_BYTES // 5),
        "problem_statement": _prose(rng, phrases, PROMPT_CHARS),
        "hints_text": _prose(rng, phrases, 600),
        "created_at": f"20{16 + i % 8}-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
        "version": f"{1 + i % 5}.{i % 10}",
        "FAIL_TO_PASS": json.dumps(tests[:3]), "PASS_TO_PASS": json.dumps(tests[3:]),
        "environment_setup_commit": "%040x" % rng.getrandbits(160),
    }


def _code_line(rng: random.Random, words: ZipfPicker) -> str:
    a, b, c = words.many(rng, 3)
    shapes = (f"{a}_{b} = {c}({a}, {rng.randrange(1000)})", f"if {a} is not None and {b}.{c}:",
              f"return self._{a}({b}={c!r})", f"def {a}_{b}(self, {c}=None):", f"# {a} {b} {c}",
              f"for {a} in {b}.{c}():")
    return "    " * rng.randrange(3) + rng.choice(shapes)


def _diff(rng: random.Random, code: list[str], size: int, extra: str = "") -> str:
    """A unified diff of about `size` bytes: files, hunks of context, removed and added lines."""
    out, total = [], 0
    while total < size:
        name = code[rng.randrange(len(code))].split()[-1].strip("():,'")[:16] or "module"
        head = f"diff --git a/src/{name}.py b/src/{name}.py\n--- a/src/{name}.py\n+++ b/src/{name}.py\n"
        start = rng.randrange(1, 3000)
        body = [f"@@ -{start},40 +{start},42 @@"]
        body += [rng.choice(" -+") + line for line in rng.choices(code, k=40)]
        text = head + "\n".join(body) + "\n"
        out.append(text)
        total += len(text)
    return "".join(out) + (extra + "\n" if extra else "")


def _prose(rng: random.Random, phrases: list[str], chars: int) -> str:
    out, total = [], 0
    while total < chars:
        paragraph = " ".join(rng.choices(phrases, k=6))
        out.append(paragraph)
        total += len(paragraph) + 2
    return "\n\n".join(out)[:chars]


def write_prompts(source: Path, rows: int = PROMPTS_ROWS, seed: int = SEED) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed + 1)
    words = ZipfPicker(build_vocabulary(rng), s=1.1)
    phrases = [" ".join(words.many(rng, rng.randint(8, 30))).capitalize() + "." for _ in range(5_000)]
    schema = pa.schema([("id", pa.string()), ("prompt", pa.string()), ("source", pa.string()),
                        ("difficulty", pa.string()), ("answer", pa.string())])
    repo = _repo(source, PROMPTS_ID, "A hundred thousand prompts", seed)
    sources = ["forum", "textbook", "exam", "synthetic", "interview"]
    with pq.ParquetWriter(repo / "data" / "train-00000-of-00001.parquet", schema) as writer:
        for start in range(0, rows, PROMPTS_GROUP):
            batch = [{"id": f"p-{i:06d}", "prompt": f"Problem {i}. " + " ".join(rng.choices(phrases, k=rng.randint(2, 12))),
                      "source": sources[i % len(sources)], "difficulty": ("easy", "medium", "hard")[i % 3],
                      "answer": str(i * 7 % 9973)}
                     for i in range(start, min(rows, start + PROMPTS_GROUP))]
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return repo
