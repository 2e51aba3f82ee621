"""A production-sized synthetic catalog, the same bytes on every run: 7,225 environments, 51,498 indexed tasks.

`python scripts/synth_catalog.py --out DIR [--scale N]` writes (N times the size with --scale: 10 gives 72,250
environments, 514,980 tasks and a largest index of 36,880; the same bytes for a given seed and scale, and scale 1
is the catalog above byte for byte)

- DIR/source/: a FolderSource tree, one folder per environment (README.md front matter with tags, pretty_name and
  description, and a .hub.json with the Hub's counters and a fixed sha), plus 120 Gradio Spaces that the listing
  leaves out. Only the 1,000-task Harbor dataset (THOUSAND_ID) ships task folders, so its pages can be served;
  every other environment is a card alone.
- DIR/store/indexes/: the task index of every dataset that holds tasks, in the bytes save_index writes, shaped like the
  Harbor adapter's rows and carrying the record's sha as revision, so the indexes count as current.

`hub_fixtures(catalog)`, `big_repo_fixture()` and `thousand_task_fixture()` give the same repositories as
`HubStandIn.add_repo` arguments. The proportions follow the recipe in research/perf-anchors.md: the kind split,
Zipf-drawn text from a 2,000-word vocabulary, Pareto counters and task counts, Zipf tags and categories.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
import time
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import accumulate
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from rlx.adapters import get  # noqa: E402
from rlx.adapters.contract import Index, TaskRow  # noqa: E402
from rlx.store import Store  # noqa: E402

SEED = 7225
TASK_TOTAL = 51_498
LARGEST_INDEX = 3_688  # the original's largest indexed dataset
THOUSAND_ID = "synth-bench/thousand-tasks"  # the Harbor dataset with real task folders (pages, indexing)
BIG_REPO_ID = "synth-bench/app-tasks-5000"  # 125,000 files: the indexing of a very large repository
BIG_REPO_TASKS, BIG_REPO_APP_FILES = 5_000, 20
SUITE_ID = "synth-bench/suite-3500"  # a real suite's size (3,566 tasks): indexed from a local folder and the Hub
SUITE_TASKS, SUITE_FILES = 3_500, 30_000
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)  # "today" for ages and trending: fixed, so bytes are stable

# The kinds as this app names them, with the original catalog's counts (its traces, rows and mimo datasets are
# all "rows" here: datasets tagged rl-environment and nothing more specific).
SPACE_KINDS = {"openenv-space": 3_650, "other-space": 647}
# Gradio Spaces tagged rl-environment: the source holds them, the catalog's listing leaves them out (not Docker
# apps), as the Hub holds many more tagged repositories than the catalog shows.
UNLISTED_SPACES = 120
DATASET_KINDS = {"harbor": 1_080, "verifiers": 498, "nemo-gym": 374, "verl": 335, "openenv-data": 201, "rows": 440}
KIND_TAGS = {"openenv-space": ["openenv"], "other-space": ["rl-environment"], "harbor": ["harbor"],
             "verifiers": ["verifiers"], "nemo-gym": ["nemo-gym"], "verl": ["verl"], "openenv-data": ["openenv"],
             "rows": ["rl-environment"], "unlisted-space": ["rl-environment"]}
INDEX_ADAPTER = {"harbor": "harbor"}  # other formats' adapters are named after their kind

# ---------------------------------------------------------------------------------------------- the vocabulary

# The top ranks, in order: function words interleaved with what RL environment cards say most.
HEAD_WORDS = """the a to and of in for with is on task an environment that tasks reward by model from this each
policy are code as or be tool game it rl learning agent benchmark using episode step solve terminal can trained
multi python evaluation training actions test state problems search agents""".split()
# The rest of the domain, in no particular order (their ranks are shuffled below).
DOMAIN_WORDS = """action observation value rollout trajectory verifier grader score metric dataset prompt completion
answer question problem proof theorem equation algebra geometry calculus number integer string list array matrix
graph tree node edge path sort binary heap stack queue hash cache database sql query table schema json csv log parse
format regex text document summary translation language english dialogue chat conversation user assistant
instruction turn single interactive sandbox container image build compile debug fix bug patch repository git
commit branch merge refactor rewrite review security vulnerability exploit network http request response config
setup install package dependency library framework unit integration coverage performance optimize memory latency
throughput scheduling planning strategy decision optimal random seed deterministic curriculum difficulty easy
medium hard level stage open source agentic coding software engineering data science analysis statistics
probability chemistry biology medicine finance trading market economics legal contract email calendar
spreadsheet slide vision audio speech video robotics navigation manipulation grasp arm locomotion atari retro
arcade card poker blackjack wordle crossword sudoku countdown arithmetic gradient grammar graphic grade graded
grading gravity rewarded research season seat sealed secret sequence server shell file bash docker api web
browser click form page puzzle grid world maze chess robot control physics simulation world model planner
reasoning logic deduction inference chain thought tokens context window long horizon sparse dense shaped
feedback human preference judge rubric critique self play opponent cooperative competitive team swarm market
auction negotiation bargaining diplomacy strategy board tabletop text adventure quest inventory crafting
minecraft survival exploration curiosity novelty intrinsic extrinsic discount horizon return advantage critic
actor baseline variance ppo grpo dpo sft reinforce bandit contextual arm regret exploration exploitation
mujoco gym gymnasium openenv harbor verifiers verl nemo kernel cuda triton compiler assembly rust javascript
typescript golang java haskell ocaml lean coq isabelle formal verification specification invariant loop
recursion dynamic programming greedy divide conquer backtracking combinatorics geometry topology lattice
cipher encryption decrypt password authentication token oauth cookie session injection overflow fuzzing
forensics incident firewall packet protocol socket port dns routing kubernetes cluster deploy pipeline ci
workflow automation scraping crawler extraction ocr table chart plot visualization dashboard report invoice
receipt accounting tax budget portfolio risk forecast weather climate energy grid power battery vehicle
driving traffic route map satellite drone warehouse logistics supply inventory retail customer support ticket
triage medical diagnosis clinical radiology genomics protein molecule drug synthesis reaction lab experiment
instrument measurement calibration sensor signal filter frequency spectrum audio music melody chord rhythm
poetry story fiction character plot summary essay argument debate persuasion fact checking citation retrieval
embedding vector index ranking recommendation click""".split()
RARE_WORDS = ["sokoban", "nonogram", "kakuro", "hashiwokakero", "shogi", "xiangqi"]  # the last ranks
DERIVED = {"s": 0.35, "ing": 0.15, "ed": 0.12}  # share of domain words that also appear with each ending
SYLLABLES = ["ka", "ve", "lo", "tri", "mba", "zor", "qui", "ne", "da", "rix", "po", "sel", "an", "tu", "mer",
             "gal", "io", "fen", "dra", "ost", "ul", "pra", "ki", "wen", "sa", "bor", "el", "ni", "cor", "thu"]
VOCABULARY_SIZE = 2_000

ENV_TAGS = """tool-use coding math reasoning agents multi-turn games text sandbox web-browsing terminal python
software-engineering puzzles benchmark evaluation rlhf reward-modeling chat instruction-following planning
long-context multi-agent simulation robotics control safety security data-science sql education science
chemistry biology medicine finance economics legal dialogue vision multimodal audio speech translation
summarization retrieval search question-answering theorem-proving lean formal-methods competitive-programming
algorithms debugging testing devops docker kubernetes networking spreadsheets documents ocr charts
recommendation trading negotiation board-games card-games atari retro navigation manipulation locomotion
curriculum self-play verifiable-rewards synthetic english""".split()
TASK_TAGS = ENV_TAGS[:40] + """bash git regex json csv http sqlite pytest refactor performance memory concurrency
parsing scraping linux cron permissions logging config""".split()
CATEGORIES = """software-engineering data-processing debugging system-administration security file-operations
text-processing mathematics scientific-computing machine-learning networking web-development databases
algorithms games puzzles model-training optimization build-systems version-control cryptography
data-analysis visualization devops containers personal-assistant research document-processing audio-processing
image-processing finance legal medicine chemistry biology education games-ai compilers formal-verification
optimization-research interactive-fiction""".split()
GRADINGS = ["reward.txt", "reward.json", "unknown", "none", "exact-match", "model-graded"]
FRAMEWORKS = ["pytest", "python", "bash", "none"]
RUNTIMES = ["dockerfile", "image", "compose", "none"]
NETWORKS = ["public", "no-network", "allowlist"]


def zipf_weights(n: int, s: float = 1.0) -> list[float]:
    return list(accumulate(1.0 / (rank ** s) for rank in range(1, n + 1)))


class ZipfPicker:
    """Draws items with probability ∝ 1/rank (rank 1 first), by binary search on cumulative weights."""

    def __init__(self, items: list, s: float = 1.0):
        self.items, self.cum = items, zipf_weights(len(items), s)
        self.total = self.cum[-1]

    def one(self, rng: random.Random):
        return self.items[bisect_left(self.cum, rng.random() * self.total)]

    def many(self, rng: random.Random, k: int) -> list:
        return rng.choices(self.items, cum_weights=self.cum, k=k)

    def distinct(self, rng: random.Random, k: int) -> list:
        chosen: dict = {}
        while len(chosen) < min(k, len(self.items)):
            chosen[self.one(rng)] = True
        return list(chosen)


def build_vocabulary(rng: random.Random) -> list[str]:
    """2,000 words by rank: the head list, then domain words and their derived forms mixed with made-up words
    (the long tail every real catalog has: names, jargon, typos), and the rare words last."""
    seen = set(HEAD_WORDS) | set(RARE_WORDS)
    domain = [w for w in dict.fromkeys(DOMAIN_WORDS) if w not in seen]
    derived = [w + end for w in domain for end, share in DERIVED.items() if rng.random() < share]
    middle = list(dict.fromkeys(domain + derived))
    rng.shuffle(middle)
    seen |= set(middle)
    made_up: list[str] = []
    while len(HEAD_WORDS) + len(middle) + len(made_up) + len(RARE_WORDS) < VOCABULARY_SIZE:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            made_up.append(word)
    # Real words keep the better ranks: made-up words start a third of the way into the domain list.
    split = len(middle) // 3
    tail = middle[split:] + made_up
    rng.shuffle(tail)
    return HEAD_WORDS + middle[:split] + tail + RARE_WORDS


# ---------------------------------------------------------------------------------------------- the plan


@dataclass
class SynthEnv:
    """One environment of the catalog, and what its source folder and index hold."""

    repo_type: str
    repo_id: str
    kind: str
    tags: list[str]
    pretty_name: str
    description: str
    meta: dict  # .hub.json
    task_count: int = 0
    sdk: str | None = None

    @property
    def sha(self) -> str:
        return self.meta["sha"]


@dataclass
class Catalog:
    seed: int
    envs: list[SynthEnv]
    words: ZipfPicker = field(repr=False)
    scale: float = 1.0

    @property
    def listed(self) -> list[SynthEnv]:
        """The environments the catalog shows (the source also holds UNLISTED_SPACES that it leaves out)."""
        return [e for e in self.envs if e.kind != "unlisted-space"]

    @property
    def task_total(self) -> int:
        return sum(e.task_count for e in self.envs)


def scaled(n: int, scale: float) -> int:
    """n at `scale` times the size, never below one (scale 1 gives n itself, so today's catalog keeps its bytes)."""
    return max(1, round(n * scale))


def plan_catalog(seed: int = SEED, scale: float = 1.0) -> Catalog:
    """Every environment's card and counters, and how many tasks each dataset's index holds; `scale` multiplies
    the counts of environments, owners and tasks and the largest index (the vocabulary and tags stay: the same
    language, more of it)."""
    if not 0 < scale <= 100:
        raise ValueError(f"scale must be above 0 and at most 100, not {scale}")
    rng = random.Random(seed)
    words = ZipfPicker(build_vocabulary(rng))
    owners = _owners(rng, scaled(900, scale))
    owner_picker = ZipfPicker(owners, s=1.05)
    tag_picker = ZipfPicker(ENV_TAGS)
    name_words = ZipfPicker([w for w in dict.fromkeys(HEAD_WORDS + DOMAIN_WORDS[:300]) if len(w) > 3], s=0.9)
    used: set[str] = set()
    envs: list[SynthEnv] = []
    kinds = [("space", k, n) for k, n in SPACE_KINDS.items()] + [("dataset", k, n) for k, n in DATASET_KINDS.items()]
    kinds.append(("space", "unlisted-space", UNLISTED_SPACES))
    for repo_type, kind, count in kinds:
        for _ in range(scaled(count, scale)):
            repo_id = _unique_id(rng, owner_picker, name_words, used)
            envs.append(_env(rng, seed, words, tag_picker, repo_type, kind, repo_id))
    # The dataset whose pages and indexing are measured: a Harbor dataset with real task folders.
    harbor = next(e for e in envs if e.kind == "harbor")
    used.discard(harbor.repo_id)
    harbor.repo_id, harbor.pretty_name = THOUSAND_ID, "Thousand terminal tasks"
    harbor.meta["sha"] = _sha(seed, THOUSAND_ID)
    _assign_task_counts(rng, envs, scaled(TASK_TOTAL, scale), scaled(LARGEST_INDEX, scale))
    return Catalog(seed=seed, envs=envs, words=words, scale=scale)


def _owners(rng: random.Random, n: int) -> list[str]:
    suffixes = ["", "-ai", "-labs", "-research", "-rl", "-team", "-dev"]
    out: dict[str, None] = {}
    while len(out) < n:
        out["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))) + rng.choice(suffixes)] = None
    return list(out)


def _unique_id(rng, owner_picker: ZipfPicker, name_words: ZipfPicker, used: set[str]) -> str:
    while True:
        parts = name_words.distinct(rng, rng.randint(1, 3))
        if rng.random() < 0.3:
            parts.append(rng.choice(["v1", "v2", "env", "bench", "gym", "tasks", "rl", "lite", "hard"]))
        repo_id = f"{owner_picker.one(rng)}/{'-'.join(parts)}"
        if repo_id not in used:
            used.add(repo_id)
            return repo_id


def _env(rng, seed: int, words: ZipfPicker, tag_picker: ZipfPicker, repo_type: str, kind: str,
         repo_id: str) -> SynthEnv:
    name = repo_id.split("/", 1)[1]
    pretty = " ".join(w.capitalize() if not w[-1].isdigit() else w for w in name.split("-"))
    tags = KIND_TAGS[kind] + tag_picker.distinct(rng, rng.randint(1, 6))
    if kind in ("harbor", "verifiers") and rng.random() < 0.3:
        tags.append("rl-environment")
    created = NOW - timedelta(days=rng.uniform(15, 1_060))  # 2024-01 … 2026-11
    modified = min(NOW - timedelta(hours=1), created + timedelta(days=rng.uniform(0, (NOW - created).days)))
    likes = int(rng.paretovariate(1.2)) - 1
    downloads = 0 if repo_type == "space" else int(rng.paretovariate(0.9) * 20) - 20
    age_days = max((NOW - modified).days, 1)
    trending = round((likes + downloads / 50 + rng.uniform(0, 2)) / age_days ** 0.8, 6)
    meta = {
        "sha": _sha(seed, repo_id),
        "likes": likes,
        "downloads": downloads,
        "trendingScore": trending,
        "createdAt": _iso(created),
        "lastModified": _iso(modified),
        "private": False,
        "gated": False,
        "tags": ["license:" + rng.choice(["mit", "apache-2.0", "cc-by-4.0"]), "region:us"],
    }
    sdk = None
    if repo_type == "space":
        sdk = "gradio" if kind == "unlisted-space" else "docker"
        meta["sdk"] = sdk
        meta["runtime"] = {"stage": rng.choices(["RUNNING", "SLEEPING", "BUILD_ERROR"], [0.55, 0.4, 0.05])[0]}
    return SynthEnv(repo_type=repo_type, repo_id=repo_id, kind=kind, tags=tags, pretty_name=pretty,
                    description=sentence(rng, words, 20, 60), meta=meta, sdk=sdk)


def _assign_task_counts(rng: random.Random, envs: list[SynthEnv], total: int = TASK_TOTAL,
                        largest: int = LARGEST_INDEX) -> None:
    """Pareto sizes over most datasets, scaled to exactly `total`, none above `largest`, and exactly 1,000 for
    THOUSAND_ID. Every Harbor dataset has at least one task (an index that found none is not Harbor)."""
    holders = [e for e in envs if e.repo_type == "dataset" and (e.kind == "harbor" or rng.random() < 0.8)]
    fixed = next(e for e in holders if e.repo_id == THOUSAND_ID)
    others = [e for e in holders if e is not fixed]
    raw = [rng.paretovariate(1.05) for _ in others]
    budget = total - 1_000
    scale = budget / sum(raw)
    counts = [min(largest, max(1, round(r * scale))) for r in raw]
    counts[max(range(len(counts)), key=counts.__getitem__)] = largest  # the original's largest, exactly
    # Hand the rounding and clamping difference to the mid-sized datasets, one task at a time (the difference is
    # kept as a running number: summing every count per step is quadratic at ten times the size).
    order = sorted(range(len(counts)), key=lambda i: -counts[i])
    cursor = 0
    diff = budget - sum(counts)
    while diff != 0:
        i = order[len(order) // 10 + cursor % (len(order) // 2)]
        step = 1 if diff > 0 else -1
        if 1 <= counts[i] + step <= largest:
            counts[i] += step
            diff -= step
        cursor += 1
    fixed.task_count = 1_000
    for env, n in zip(others, counts):
        env.task_count = n
    assert sum(e.task_count for e in envs) == total


def sentence(rng: random.Random, words: ZipfPicker, low: int, high: int) -> str:
    text = " ".join(words.many(rng, rng.randint(low, high)))
    return text[0].upper() + text[1:] + "."


def _sha(seed: int, repo_id: str) -> str:
    return hashlib.sha1(f"{seed}:{repo_id}".encode()).hexdigest()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


# ---------------------------------------------------------------------------------------------- tasks


def task_rows(catalog: Catalog, env: SynthEnv) -> list[TaskRow]:
    """The env's index rows: each seeded by the env alone, so one index comes out the same wherever it is built."""
    rng = random.Random(f"{catalog.seed}:{env.repo_id}")
    category = ZipfPicker(CATEGORIES)
    task_tags = ZipfPicker(TASK_TAGS)
    rows = []
    for i in range(env.task_count):
        title_words = catalog.words.many(rng, rng.randint(4, 10))
        ref = f"{'-'.join(title_words[:3])}-{i:04d}"
        facets = {
            "category": category.one(rng),
            "difficulty": rng.choices(["easy", "medium", "hard"], [0.4, 0.4, 0.2])[0],
            "tags": sorted(task_tags.distinct(rng, rng.randint(0, 4))),
            "grading": rng.choices(GRADINGS, [0.45, 0.2, 0.1, 0.05, 0.12, 0.08])[0],
            "framework": rng.choices(FRAMEWORKS, [0.5, 0.2, 0.25, 0.05])[0],
            "runtime": rng.choices(RUNTIMES, [0.6, 0.25, 0.05, 0.1])[0],
            "network": rng.choices(NETWORKS, [0.6, 0.3, 0.1])[0],
            "runs_here": "yes" if rng.random() < 0.7 else "no",
        }
        rows.append(TaskRow(ref=ref, title=" ".join(title_words).capitalize(), brief=sentence(rng, catalog.words, 30, 80),
                            facets={k: v for k, v in facets.items() if v not in ("", [])},
                            extra={"_dir": f"tasks/{ref}", "withheld": 0, "replayable": facets["runs_here"] == "yes"}))
    return rows


def index_of(catalog: Catalog, env: SynthEnv) -> Index:
    adapter = INDEX_ADAPTER.get(env.kind, env.kind)
    version = get(adapter).index_version if get(adapter) is not None else 1  # current: the indexer keeps it
    return Index(env_id=env.repo_id, adapter=adapter, revision=env.sha, version=version,
                 built_at=_iso(NOW).replace(".000Z", "+00:00"), complete=True, rows=task_rows(catalog, env),
                 summary={"walked": False, "notes": [], "truncated": False, "seconds": 0, "readme": None})


# ---------------------------------------------------------------------------------------------- writing


def readme_of(env: SynthEnv) -> str:
    tags = "".join(f"- {t}\n" for t in env.tags)
    sdk = f"sdk: {env.sdk}\napp_port: 8000\n" if env.sdk else ""
    return (f"---\npretty_name: {json.dumps(env.pretty_name)}\ndescription: {json.dumps(env.description)}\n{sdk}"
            f"license: mit\ntags:\n{tags}---\n\n# {env.pretty_name}\n\n{env.description}\n")


def harbor_task_files(rng: random.Random, words: ZipfPicker, name: str, prefix: str = "tasks/",
                      app_files: int = 0) -> dict[str, str]:
    """One Harbor task folder: task.toml (metadata), instruction, Dockerfile, grader and solution; optionally an
    app/ folder of `app_files` modules that no index needs (what makes a repository too big to list)."""
    base = f"{prefix}{name}/"
    category = ZipfPicker(CATEGORIES).one(rng)
    difficulty = rng.choices(["easy", "medium", "hard"], [0.4, 0.4, 0.2])[0]
    tags = ", ".join(json.dumps(t) for t in ZipfPicker(TASK_TAGS).distinct(rng, rng.randint(0, 4)))
    files = {
        base + "task.toml": (f'schema_version = "1.1"\n\n[metadata]\ndifficulty = "{difficulty}"\n'
                             f'category = "{category}"\ntags = [{tags}]\n\n[verifier]\ntimeout_sec = 120.0\n\n'
                             '[agent]\ntimeout_sec = 600.0\n\n[environment]\ncpus = 1\nmemory_mb = 2048\n'
                             'network_mode = "public"\n'),
        base + "instruction.md": f"# {name}\n\n{sentence(rng, words, 30, 80)}\n\n{sentence(rng, words, 20, 60)}\n",
        base + "environment/Dockerfile": "FROM python:3.12-slim\nWORKDIR /app\nRUN pip install pytest==8.3.3\n",
        base + "tests/test.sh": "#!/bin/bash\npytest /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt\n",
        base + "solution/solve.sh": "#!/bin/bash\necho done > /app/answer.txt\n",
    }
    for j in range(app_files):
        files[base + f"app/src/module_{j}.py"] = f"# module {j} of {name}\n"
    return files


def thousand_task_fixture(catalog: Catalog | None = None) -> tuple[str, str, dict[str, str], dict]:
    """THOUSAND_ID as add_repo arguments: 1,000 Harbor task folders under tasks/."""
    catalog = catalog or plan_catalog()
    env = next(e for e in catalog.envs if e.repo_id == THOUSAND_ID)
    rng = random.Random(f"{catalog.seed}:{THOUSAND_ID}:files")
    files = {"README.md": readme_of(env)}
    for i in range(env.task_count):
        files.update(harbor_task_files(rng, catalog.words, f"task-{i:04d}"))
    return "dataset", THOUSAND_ID, files, env.meta


def big_repo_fixture(n: int = BIG_REPO_TASKS, seed: int = SEED) -> tuple[str, str, dict[str, str], dict]:
    """BIG_REPO_ID as add_repo arguments: n tasks under tasks/, each shipping an app folder of 20 modules (as in
    tests/adapters/test_walker.py's big_repo_files): 125,000 files for 5,000 tasks."""
    rng = random.Random(f"{seed}:{BIG_REPO_ID}")
    words = ZipfPicker(build_vocabulary(random.Random(seed)))
    files = {"README.md": "---\npretty_name: App tasks\ntags:\n- harbor\n- rl-environment\n---\n\n# App tasks\n"}
    for i in range(n):
        files.update(harbor_task_files(rng, words, f"app-{i:05d}", app_files=BIG_REPO_APP_FILES))
    meta = {"sha": _sha(seed, BIG_REPO_ID), "likes": 12, "downloads": 3400, "trendingScore": 4.2,
            "createdAt": "2026-06-01T00:00:00.000Z", "lastModified": "2026-11-20T00:00:00.000Z"}
    return "dataset", BIG_REPO_ID, files, meta


def suite_fixture(n: int = SUITE_TASKS, total_files: int = SUITE_FILES,
                  seed: int = SEED) -> tuple[str, str, dict[str, str], dict]:
    """SUITE_ID as add_repo arguments: n Harbor tasks under tasks/ whose app folders bring the repository to exactly
    `total_files` files, as a real 3,566-task suite of about 30,000 files. Its sha is the stand-in's to give: the
    folder copy (write_repo) has none, so a FolderSource fingerprints it."""
    rng = random.Random(f"{seed}:{SUITE_ID}")
    words = ZipfPicker(build_vocabulary(random.Random(seed)))
    files = {"README.md": "---\npretty_name: Suite of 3,500\ntags:\n- harbor\n---\n\n# Suite of 3,500 tasks\n"}
    base_files = len(harbor_task_files(random.Random(0), words, "probe"))
    extra = max(0, total_files - 1 - n * base_files)
    for i in range(n):
        files.update(harbor_task_files(rng, words, f"suite-{i:04d}", app_files=extra // n + (i < extra % n)))
    meta = {"likes": 3, "downloads": 120, "createdAt": "2026-09-01T00:00:00.000Z",
            "lastModified": "2026-11-25T00:00:00.000Z"}
    return "dataset", SUITE_ID, files, meta


def write_repo(root: Path, fixture: tuple[str, str, dict[str, str], dict]) -> Path:
    """One add_repo-shaped fixture written as a FolderSource repository under `root`; returns its folder. The meta
    goes to .hub.json as given (without a sha, the folder's fingerprint is its revision)."""
    repo_type, repo_id, files, meta = fixture
    folder = root / ("datasets" if repo_type == "dataset" else "spaces") / repo_id
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    (folder / ".hub.json").write_text(json.dumps(meta, indent=1))
    return folder


def hub_fixtures(catalog: Catalog) -> Iterator[tuple[str, str, dict[str, str], dict]]:
    """Every environment of the catalog as add_repo arguments (a card alone; THOUSAND_ID with its task folders)."""
    for env in catalog.envs:
        if env.repo_id == THOUSAND_ID:
            yield thousand_task_fixture(catalog)
        else:
            yield env.repo_type, env.repo_id, {"README.md": readme_of(env)}, env.meta


def add_to_hub(hub, catalog: Catalog | None = None, big_repo: bool = False) -> int:
    """Load the catalog (and, when asked, the 5,000-task repository) into a HubStandIn; returns the count added."""
    catalog = catalog or plan_catalog()
    fixtures = list(hub_fixtures(catalog))
    if big_repo:
        fixtures.append(big_repo_fixture(seed=catalog.seed))
    for repo_type, repo_id, files, meta in fixtures:
        hub.add_repo(repo_type, repo_id, files, meta)
    return len(fixtures)


def write_source(catalog: Catalog, root: Path) -> None:
    """The FolderSource tree: datasets/<org>/<name>/ and spaces/<org>/<name>/, README.md and .hub.json each."""
    for env in catalog.envs:
        folder = root / ("datasets" if env.repo_type == "dataset" else "spaces") / env.repo_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "README.md").write_text(readme_of(env))
        (folder / ".hub.json").write_text(json.dumps(env.meta, indent=1))
    _, _, files, _ = thousand_task_fixture(catalog)
    base = root / "datasets" / THOUSAND_ID
    for path, text in files.items():
        target = base / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def write_indexes(catalog: Catalog, store: Store) -> int:
    """One stored index per dataset that holds tasks, each written and dropped before the next (memory stays at
    the largest index); returns how many tasks were written."""
    written = 0
    for env in catalog.envs:
        if env.task_count:
            index = index_of(catalog, env)
            _write_index(store, index)
            written += len(index.rows)
    return written


def _write_index(store: Store, index: Index) -> None:
    """The bytes save_index writes for a complete index (the digest check in tests/snapshot/test_synth_catalog.py holds
    them equal), without its fsync and deep copy: a fixture needs no durability, and at ten times the size those
    two are half the time."""
    rows = [{"ref": r.ref, "title": r.title, "brief": r.brief, "facets": r.facets, "error": r.error,
             "extra": r.extra} for r in index.rows]
    value = {"env_id": index.env_id, "adapter": index.adapter, "revision": index.revision, "version": index.version,
             "built_at": index.built_at, "complete": index.complete, "rows": rows, "summary": index.summary,
             "error": index.error}
    path = store.index_path(index.env_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    path.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))


MILLION_ID = "synth-bench/million-rows"
MILLION_ROWS = 1_000_000
MILLION_GROUP = 1_000  # rows per parquet row group, as the `datasets` library writes them


def write_million_rows(source: Path, rows: int = MILLION_ROWS, seed: int = SEED) -> Path:
    """A verl-shaped rows dataset of `rows` rows in one parquet file (row groups of MILLION_GROUP rows) under a
    FolderSource tree; the same bytes on every run. Returns the dataset's folder."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    words = ZipfPicker(build_vocabulary(rng), s=1.1)
    repo = source / "datasets" / MILLION_ID
    (repo / "data").mkdir(parents=True, exist_ok=True)
    (repo / "README.md").write_text("---\npretty_name: A million rows\ntags: [verl, rl-environment]\n---\n"
                                    "# A million rows\n\nSynthetic verl rows for the rows benchmark.\n")
    (repo / ".hub.json").write_text(json.dumps({"sha": _sha(seed, MILLION_ID), "likes": 1, "downloads": 1}))
    phrases = [sentence(rng, words, 12, 40) for _ in range(5_000)]  # drawn once: a million draws take minutes
    sources = ["openai/gsm8k", "lighteval/MATH", "math_dapo", "numina_olympiads", "codecontests"]
    with pq.ParquetWriter(repo / "data" / "train-00000-of-00001.parquet", _million_schema(pa),
                          compression="zstd") as writer:
        for start in range(0, rows, MILLION_GROUP):
            batch = []
            for i in range(start, min(rows, start + MILLION_GROUP)):
                batch.append({"data_source": sources[i % len(sources)], "ability": "math",
                              "prompt": [{"role": "user", "content": f"Problem {i}: {phrases[i % len(phrases)]}"}],
                              "reward_model": {"style": "rule", "ground_truth": str(i * 7 % 9973)},
                              "extra_info": {"split": "train", "index": i, "level": 1 + i % 5}})
            writer.write_table(pa.Table.from_pylist(batch, schema=_million_schema(pa)))
    return repo


def _million_schema(pa):
    return pa.schema([
        ("data_source", pa.string()), ("ability", pa.string()),
        ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", pa.struct([("split", pa.string()), ("index", pa.int64()), ("level", pa.int64())])),
    ])


def generate(out: Path, seed: int = SEED, scale: float = 1.0) -> dict:
    """Write DIR/source and DIR/store/indexes; return counts and how long each part took."""
    started = time.perf_counter()
    catalog = plan_catalog(seed, scale)
    planned = time.perf_counter()
    write_source(catalog, out / "source")
    sourced = time.perf_counter()
    tasks = write_indexes(catalog, Store(out / "store"))
    done = time.perf_counter()
    kinds: dict[str, int] = {}
    for env in catalog.envs:
        kinds[env.kind] = kinds.get(env.kind, 0) + 1
    return {"scale": scale, "envs": len(catalog.listed), "unlisted_spaces": kinds.pop("unlisted-space", 0),
            "tasks": tasks,
            "kinds": kinds,
            "indexed_envs": sum(1 for e in catalog.envs if e.task_count),
            "largest_index": max(e.task_count for e in catalog.envs),
            "seconds": {"plan": round(planned - started, 2), "source": round(sourced - planned, 2),
                        "indexes": round(done - sourced, 2), "total": round(done - started, 2)}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write source/ and store/ into")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="N times today's size (0.1, 1, 10 …; 10 gives 72,250 environments, 514,980 tasks)")
    parser.add_argument("--million-rows", action="store_true",
                        help=f"write only the {MILLION_ROWS:,}-row parquet dataset ({MILLION_ID}) under DIR/source")
    args = parser.parse_args(argv)
    if not 0 < args.scale <= 100:
        parser.error(f"--scale must be above 0 and at most 100, not {args.scale}")
    if args.million_rows:
        print(write_million_rows(args.out / "source", seed=args.seed))
        return
    print(json.dumps(generate(args.out, args.seed, args.scale), indent=1))


if __name__ == "__main__":
    main()
