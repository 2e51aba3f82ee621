"""The bundled catalog in examples/: every file parses, and every Harbor task really runs.

Each Harbor task (any folder holding a task.toml) is run for real in the sandbox rollouts run in (rlx/runs/bwrap.py:
the host's system read-only, its own network stack, none when the task says no-network), with a fresh /app seeded
with the files the Dockerfile copies (or, with `docker_image` and no Dockerfile, everything in environment/), /logs,
the task's tests at /tests and its solution at /solution. Then:

(a) the verifier, run on the untouched environment, must give reward 0 (named scores: all below 1);
(b) after solution/solve.sh, the verifier must give reward 1 (named scores: all 1).

Multi-step tasks run step by step in one /app: each step's workdir/ is uploaded, then (a) and (b) for that step.
Only the sandboxed runs need `bwrap`; they are skipped, with the reason, on a machine without it.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from rlx.runs.bwrap import Sandbox, SandboxError
from rlx.runs.sandbox_files import copy_dir_out

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ORG = "rlx-examples"

TASK_DIRS = sorted(p.parent for p in (EXAMPLES / "datasets").rglob("task.toml"))
TASK_IDS = [str(d.relative_to(EXAMPLES / "datasets" / ORG)) for d in TASK_DIRS]
REPOS = sorted(
    p
    for kind in ("datasets", "spaces")
    for p in (EXAMPLES / kind).glob("*/*")
    if p.is_dir()
)
REPO_IDS = [str(p.relative_to(EXAMPLES)) for p in REPOS]

BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(
    BWRAP is None, reason="bubblewrap (`bwrap`) is not installed: `apt-get install -y bubblewrap` to run the tasks"
)
MAX_PHASE_SEC = 60.0  # no single sandboxed phase may take longer, whatever task.toml allows
NOT_SEED = {"Dockerfile", ".dockerignore", "docker-compose.yaml", "docker-compose.yml"}


# ----------------------------------------------------------------------------------------------------------------
# helpers


def judged(cfg: dict) -> bool:
    """A model-graded task (rlx/runs/judges.py): its verifier needs the judge a run is given."""
    return "RLX_JUDGE_URL" in cfg.get("verifier", {}).get("env", {})


def load_toml(task_dir: Path) -> dict:
    with open(task_dir / "task.toml", "rb") as fh:
        return tomllib.load(fh)


def front_matter(readme: Path) -> dict:
    text = readme.read_text(encoding="utf-8")
    m = re.match(r"\A---\n(.*?)\n---\n", text, re.S)
    assert m, f"{readme} has no YAML front matter between '---' lines"
    data = yaml.safe_load(m.group(1))
    assert isinstance(data, dict), f"{readme}: front matter is not a mapping"
    body = text[m.end() :].strip()
    assert len(body) > 200, f"{readme}: the card under the front matter is too short"
    return data


def steps_of(cfg: dict) -> list[dict]:
    return list(cfg.get("steps") or [])


def no_network(cfg: dict) -> bool:
    env = cfg.get("environment", {})
    if "network_mode" in env:
        return env["network_mode"] == "no-network"
    return env.get("allow_internet") is False  # the legacy spelling


def seed_app(task_dir: Path, app: Path) -> None:
    """What the image's WORKDIR holds before the agent starts: every build-context file but the build files."""
    env_dir = task_dir / "environment"
    if not env_dir.is_dir():
        return
    for src in sorted(env_dir.rglob("*")):
        rel = src.relative_to(env_dir)
        if src.is_dir() or (len(rel.parts) == 1 and rel.name in NOT_SEED):
            continue
        dst = app / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def merged_dir(dst: Path, *sources: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for src in sources:
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


def tar_of(folder: Path) -> bytes:
    """A folder's contents as a tar stream, to unpack at a path inside a sandbox."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def start_sandbox(offline: bool) -> Sandbox:
    """The production sandbox (rlx/runs/bwrap.py) rollouts run in: its own network stack unless offline."""
    box = Sandbox(network=not offline)
    box.start()
    return box


def in_sandbox(box: Sandbox, command: str, timeout: float, env: dict | None = None, stdin: bytes | None = None):
    return asyncio.run(box.run(command, env={"PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
                               timeout=min(timeout, MAX_PHASE_SEC), stdin=stdin))


def put(box: Sandbox, folder: Path, where: str) -> None:
    """Replace `where` inside the sandbox with a copy of `folder`."""
    done = in_sandbox(box, f"rm -rf {where} && mkdir -p {where} && tar -x -C {where}", 60, stdin=tar_of(folder))
    assert done.return_code == 0, f"copying {folder} to {where} failed: {done.stderr}"


def read_rewards(logs: Path) -> dict[str, float]:
    """Harbor's rule: reward.json (name -> number) wins over reward.txt (one number, stored as `reward`)."""
    rj, rt = logs / "verifier" / "reward.json", logs / "verifier" / "reward.txt"
    if rj.is_file():
        data = json.loads(rj.read_text())
        assert isinstance(data, dict) and data, f"reward.json is not a non-empty object: {data!r}"
        for key, value in data.items():
            assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{key}: {value!r}"
            assert math.isfinite(value)
        return {k: float(v) for k, v in data.items()}
    assert rt.is_file(), "the verifier wrote neither reward.json nor reward.txt"
    text = rt.read_text().strip()
    assert text, "reward.txt is empty"
    return {"reward": float(text)}


class Runner:
    """Runs one task's phases in production sandboxes: one per fresh /app, with fresh /logs for every verifier run."""

    def __init__(self, task_dir: Path, tmp: Path):
        self.task_dir, self.tmp = task_dir, tmp
        self.cfg = load_toml(task_dir)
        self.offline = no_network(self.cfg)
        self.n = 0
        self.last_output = ""
        self.boxes: list[Sandbox] = []

    def _scratch(self, name: str) -> Path:
        self.n += 1
        path = self.tmp / f"{self.n:02d}-{name}"
        path.mkdir(parents=True)
        return path

    def fresh_app(self) -> Sandbox:
        """A new sandbox whose /app holds what the image's WORKDIR would."""
        app = self._scratch("app")
        seed_app(self.task_dir, app)
        box = start_sandbox(self.offline)
        self.boxes.append(box)
        put(box, app, "/app")
        return box

    def verify(self, box: Sandbox, tests: Path, timeout: float, env: dict | None = None) -> dict[str, float]:
        put(box, tests, "/tests")
        in_sandbox(box, "rm -rf /logs && mkdir -p /logs/verifier", 30)
        res = in_sandbox(box, "bash /tests/test.sh", timeout, env)
        self.last_output = f"--- verifier stdout ---\n{res.stdout[-3000:]}\n--- stderr ---\n{res.stderr[-3000:]}"
        logs = self._scratch("logs")
        copy_dir_out(box.root, "/logs", logs)
        try:
            return read_rewards(logs)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.last_output}") from None

    def solve(self, box: Sandbox, solution: Path, timeout: float, env: dict | None = None) -> None:
        put(box, solution, "/solution")
        res = in_sandbox(box, "bash /solution/solve.sh", timeout, env)
        assert res.return_code == 0, f"solve.sh exited {res.return_code}\n{res.stdout}\n{res.stderr}"

    def close(self) -> None:
        for box in self.boxes:
            box.stop()


def assert_unsolved(run: Runner, rewards: dict[str, float], where: str) -> None:
    if set(rewards) == {"reward"}:
        ok = rewards["reward"] == 0
    else:
        ok = all(v < 1 for v in rewards.values())
    assert ok, f"{where}: rewards {rewards} before any solution (expected 0)\n{run.last_output}"


def assert_solved(run: Runner, rewards: dict[str, float], where: str) -> None:
    ok = all(v == 1 for v in rewards.values())
    assert ok, f"{where}: rewards {rewards} after the reference solution (expected 1)\n{run.last_output}"


# ----------------------------------------------------------------------------------------------------------------
# sandbox sanity (runs once; tells exactly what failed when user namespaces are unavailable)


@pytest.fixture(scope="session")
def bwrap_works():
    if BWRAP is None:
        pytest.skip("bubblewrap (`bwrap`) is not installed")
    try:
        start_sandbox(offline=True).stop()
    except SandboxError as exc:
        pytest.fail(f"the production sandbox does not start here: {exc} (user namespaces unavailable? check "
                    "/proc/sys/kernel/unprivileged_userns_clone and /proc/sys/user/max_user_namespaces)")
    if not Path("/usr/bin/python3").exists() and not Path("/usr/local/bin/python3").exists():
        pytest.fail("the task checkers need a python3 under /usr (the sandbox sees only /usr, /bin, /lib, /etc)")


# ----------------------------------------------------------------------------------------------------------------
# the catalog's files


def test_catalog_has_what_the_app_expects():
    ids = set(REPO_IDS)
    for repo in (
        "datasets/rlx-examples/terminal-basics",
        "datasets/rlx-examples/python-bugfix",
        "datasets/rlx-examples/science-puzzles",
        "datasets/rlx-examples/math-word-problems",
        "datasets/rlx-examples/countdown-verl",
        "datasets/rlx-examples/tool-calls-nemo-gym",
        "datasets/rlx-examples/trivia-table",
        "datasets/rlx-examples/mimo-sample",
        "datasets/rlx-examples/mimo-release",
        "datasets/rlx-examples/mimo-release-harbor",
        "spaces/rlx-examples/echo-env",
        "spaces/rlx-examples/gridworld-demo",
    ):
        assert repo in ids
    assert len(TASK_DIRS) >= 15
    without_meta = [r for r in REPOS if not (r / ".hub.json").exists()]
    assert len(without_meta) == 1, f"exactly one repository lists with defaults, got {without_meta}"


@pytest.mark.parametrize("repo", REPOS, ids=REPO_IDS)
def test_readme_front_matter(repo: Path):
    card = front_matter(repo / "README.md")
    tags = card.get("tags")
    assert isinstance(tags, list) and tags and all(isinstance(t, str) for t in tags)
    if repo.parent.parent.name == "datasets":
        for key in ("pretty_name", "license", "task_categories"):
            assert key in card, f"{key} missing from the card"
    else:
        assert card.get("sdk") in {"docker", "gradio", "static", "streamlit"}
        assert isinstance(card.get("title"), str)
    for config in card.get("configs") or []:
        for data_file in config["data_files"]:
            assert (repo / data_file["path"]).is_file(), data_file


@pytest.mark.parametrize("repo", [r for r in REPOS if (r / ".hub.json").exists()],
                         ids=[i for r, i in zip(REPOS, REPO_IDS) if (r / ".hub.json").exists()])
def test_hub_json(repo: Path):
    meta = json.loads((repo / ".hub.json").read_text())
    assert isinstance(meta["likes"], int)
    if repo.parent.parent.name == "datasets":
        assert isinstance(meta["downloads"], int)  # the Hub reports no downloads for Spaces
    assert isinstance(meta["trendingScore"], (int, float))
    for key in ("createdAt", "lastModified"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z", meta[key]), meta[key]
    assert meta["createdAt"] <= meta["lastModified"]
    assert meta["private"] is False
    assert meta["gated"] in (False, "auto", "manual")
    if repo.parent.parent.name == "spaces":
        card = front_matter(repo / "README.md")
        assert meta["sdk"] == card["sdk"]
        assert meta["runtime"]["stage"] in {"RUNNING", "SLEEPING", "BUILDING", "PAUSED", "STOPPED"}


def test_trending_order_differs_from_likes():
    metas = {r.name: json.loads((r / ".hub.json").read_text()) for r in REPOS if (r / ".hub.json").exists()}
    by_trending = sorted(metas, key=lambda n: -metas[n]["trendingScore"])
    by_likes = sorted(metas, key=lambda n: -metas[n]["likes"])
    assert by_trending != by_likes
    assert len({m["trendingScore"] for m in metas.values()}) == len(metas)


def test_math_word_problems_parquet():
    repo = EXAMPLES / "datasets" / ORG / "math-word-problems"
    table = pq.read_table(repo / "data" / "train-00000-of-00001.parquet")
    assert table.column_names == ["id", "prompt", "answer", "info", "task"]
    rows = table.to_pylist()
    assert 30 <= len(rows) <= 60
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert [m["role"] for m in row["prompt"]][-1] == "user"
        assert all(m["content"] for m in row["prompt"])
        assert row["answer"] and set(row["info"]) == {"difficulty", "topic"}
    card = front_matter(repo / "README.md")
    assert "verifiers" in card["tags"]


def test_countdown_verl_jsonl():
    lines = (EXAMPLES / "datasets" / ORG / "countdown-verl" / "data" / "train.jsonl").read_text().splitlines()
    assert 10 <= len(lines) <= 30
    for line in lines:
        row = json.loads(line)
        assert row["prompt"][-1]["role"] == "user"
        truth = row["reward_model"]["ground_truth"]
        assert row["reward_model"]["style"] == "rule" and set(truth) == {"target", "numbers"}
        # every puzzle is solvable: the reference uses each number once and hits the target
        reference = row["extra_info"]["reference"]
        assert re.fullmatch(r"[\d\s()+*-]+", reference)
        assert truth["target"] == eval(reference, {"__builtins__": {}})  # noqa: S307 (checked arithmetic only)
        assert sorted(int(t) for t in re.findall(r"\d+", reference)) == sorted(truth["numbers"])


def test_row_generator_reproduces_committed_files(tmp_path):
    build = EXAMPLES / "_build" / "make_rows.py"
    subprocess.run([sys.executable, str(build), "--out", str(tmp_path)], check=True, timeout=60)
    for rel in ("math-word-problems/data/train-00000-of-00001.parquet", "countdown-verl/data/train.jsonl"):
        committed, fresh = EXAMPLES / "datasets" / ORG / rel, tmp_path / rel
        if rel.endswith(".parquet"):
            assert pq.read_table(fresh).equals(pq.read_table(committed)), rel
        else:
            assert fresh.read_bytes() == committed.read_bytes(), rel


def test_mimo_release_generator_reproduces_committed_files(tmp_path):
    """The synthetic MiMo release and its Harbor conversion are what make_mimo_release.py writes (the SQLite
    database compared by its tables' contents: its bytes may differ between SQLite versions)."""
    import sqlite3

    build = EXAMPLES / "_build" / "make_mimo_release.py"
    subprocess.run([sys.executable, str(build), "--out", str(tmp_path)], check=True, timeout=60)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) >= 20
    for rel in written:
        committed, fresh = EXAMPLES / "datasets" / ORG / rel, tmp_path / rel
        if rel.suffix == ".parquet":
            assert pq.read_table(fresh).equals(pq.read_table(committed)), rel
        elif rel.suffix == ".db":
            dump = lambda path: list(sqlite3.connect(path).iterdump())  # noqa: E731
            assert dump(fresh) == dump(committed), rel
        else:
            assert fresh.read_bytes() == committed.read_bytes(), rel


def test_row_format_generator_reproduces_committed_files(tmp_path):
    build = EXAMPLES / "_build" / "make_row_formats.py"
    subprocess.run([sys.executable, str(build), "--out", str(tmp_path)], check=True, timeout=60)
    for rel in ("tool-calls-nemo-gym/data/train.jsonl", "tool-calls-nemo-gym/data/validation.jsonl",
                "trivia-table/data/train.csv", "trivia-table/data/test.csv.gz", "mimo-sample/code/train.parquet",
                "mimo-sample/music/train.parquet"):
        committed, fresh = EXAMPLES / "datasets" / ORG / rel, tmp_path / rel
        if rel.endswith(".parquet"):
            assert pq.read_table(fresh).equals(pq.read_table(committed)), rel
        else:
            assert fresh.read_bytes() == committed.read_bytes(), rel


def test_echo_env_space_is_openenv():
    repo = EXAMPLES / "spaces" / ORG / "echo-env"
    card = front_matter(repo / "README.md")
    assert card["sdk"] == "docker" and card["app_port"] == 8000 and "openenv" in card["tags"]
    manifest = yaml.safe_load((repo / "openenv.yaml").read_text())
    assert manifest["spec_version"] == 1 and manifest["runtime"] == "fastapi"
    assert manifest["app"] == "server.app:app" and manifest["port"] == 8000
    for rel in ("Dockerfile", "pyproject.toml", "server/app.py", "models.py"):
        assert (repo / rel).is_file(), rel
    gradio = front_matter(EXAMPLES / "spaces" / ORG / "gridworld-demo" / "README.md")
    assert gradio["sdk"] == "gradio" and "openenv" not in gradio["tags"] and "rl-environment" in gradio["tags"]
    assert not (EXAMPLES / "spaces" / ORG / "gridworld-demo" / "openenv.yaml").exists()


# ----------------------------------------------------------------------------------------------------------------
# Harbor tasks: complete folders, then real runs


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=TASK_IDS)
def test_task_folder_is_complete(task_dir: Path):
    cfg = load_toml(task_dir)
    assert "schema_version" in cfg or "version" in cfg
    assert cfg.get("verifier", {}).get("timeout_sec", 600) > 0
    env = cfg.get("environment", {})
    dockerfile = task_dir / "environment" / "Dockerfile"
    assert dockerfile.is_file() or env.get("docker_image"), "neither environment/Dockerfile nor docker_image"
    if "task" in cfg:
        assert cfg["task"]["name"] == f"{ORG}/{task_dir.name}"
    steps = steps_of(cfg)
    if steps:
        for step in steps:
            sdir = task_dir / "steps" / step["name"]
            for rel in ("instruction.md", "tests/test.sh", "solution/solve.sh"):
                assert (sdir / rel).is_file(), f"step {step['name']}: {rel} missing"
    else:
        for rel in ("instruction.md", "tests/test.sh", "solution/solve.sh"):
            assert (task_dir / rel).is_file(), f"{rel} missing"
        lines = (task_dir / "instruction.md").read_text().strip().splitlines()
        assert 5 <= len(lines) <= 25, f"instruction.md has {len(lines)} lines"
    if dockerfile.is_file():
        text = dockerfile.read_text()
        # the MiMo General twin works where the release's General tasks do
        assert re.search(rf"^WORKDIR {'/workspace' if judged(cfg) else '/app'}$", text, re.M)
        # every plain COPY source exists in the build context (multi-stage `COPY --from=` reads another stage)
        for line in re.findall(r"^COPY (?!--from)(.+)$", text, re.M):
            *sources, _dest = line.split()
            for src in sources:
                assert (task_dir / "environment" / src.rstrip("/")).exists() or src == ".", src


@needs_bwrap
def test_sandbox_isolation(bwrap_works):
    """The production sandbox as the tasks see it: read-only system, writable /app and /logs, /app the working
    folder, and no interface but lo when offline."""
    box = start_sandbox(offline=True)
    try:
        probe = (
            "mkdir -p /logs && touch /app/ok /logs/ok && ! touch /usr/x 2>/dev/null && ! touch /etc/x 2>/dev/null"
            " && test \"$(pwd)\" = /app && tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ,"
        )
        res = in_sandbox(box, probe, 30)
        assert res.return_code == 0, res.stderr
        assert res.stdout == "lo,", f"offline sandbox sees interfaces {res.stdout!r}"
    finally:
        box.stop()


@needs_bwrap
@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=TASK_IDS)
def test_task_runs_in_sandbox(task_dir: Path, tmp_path: Path, bwrap_works):
    if judged(load_toml(task_dir)):
        pytest.skip("graded by a judge model: it runs end to end, with one, in tests/runs/test_run_judged.py")
    run = Runner(task_dir, tmp_path)
    try:
        run_task(run, task_dir, tmp_path)
    finally:
        run.close()


def run_task(run: Runner, task_dir: Path, tmp_path: Path) -> None:
    cfg = run.cfg
    verifier_timeout = float(cfg.get("verifier", {}).get("timeout_sec", 600))
    agent_timeout = float(cfg.get("agent", {}).get("timeout_sec") or 600)
    steps = steps_of(cfg)

    if not steps:
        tests, solution = task_dir / "tests", task_dir / "solution"
        assert_unsolved(run, run.verify(run.fresh_app(), tests, verifier_timeout), "untouched environment")
        app = run.fresh_app()
        run.solve(app, solution, agent_timeout)
        assert_solved(run, run.verify(app, tests, verifier_timeout), "after solve.sh")
        return

    app = run.fresh_app()
    for step in steps:
        sdir = task_dir / "steps" / step["name"]
        if (sdir / "workdir").is_dir():
            in_sandbox(app, "tar -x -C /app", 60, stdin=tar_of(sdir / "workdir"))
        tests = merged_dir(tmp_path / f"tests-{step['name']}", task_dir / "tests", sdir / "tests")
        verifier = step.get("verifier", {})
        timeout = float(verifier.get("timeout_sec", verifier_timeout))
        env = verifier.get("env")
        assert_unsolved(run, run.verify(app, tests, timeout, env), f"step {step['name']} before its solution")
        step_agent_timeout = float(step.get("agent", {}).get("timeout_sec") or agent_timeout)
        run.solve(app, sdir / "solution", step_agent_timeout)
        assert_solved(run, run.verify(app, tests, timeout, env), f"step {step['name']} after its solve.sh")
