"""Community pages with 100,000 run records: the /community page, one environment's leaderboard, and a task
page with its rollouts (p50).

Synthetic records (20 environments, 300 tasks each, 12 agent/model pairs; a third private, failed or not scored)
are written through the index's own write path (runs_db.upsert_many) into a fresh store; nothing else is in it.
Then the app built in this process answers GET /community (the whole page: query and template) and the
environment's leaderboard, heatmap and tried-task queries (what /community/<org>/<name> reads from the index),
each SAMPLES times after one warm-up; and over HTTP, `rlx serve` (gunicorn, 2 gevent workers) answers
/community and one environment's community page (leaderboard, heatmap, untried tasks) to one client at a time.
The environment measured is a bundled dataset (rlx-examples/terminal-basics, indexed first), so its page is the
real one; it holds a twentieth of the runs, as every synthetic environment does, spread over its real tasks (about
800 runs each), so its task page lists a busy task's rollouts and its environment page its latest ones.

`python -m benchmarks.community [--runs N]` runs it alone and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from pathlib import Path

from benchmarks import servers
from benchmarks.markdown import met, table
from benchmarks.stats import percentile
from benchmarks.workspace import create

TARGETS = {"community_page_p50_ms": 50.0, "leaderboard_p50_ms": 50.0, "http_community_p50_ms": 50.0,
           "http_leaderboard_p50_ms": 50.0, "http_task_page_p50_ms": 50.0}
BUNDLED = "rlx-examples/terminal-basics"  # the one synthetic environment that is a real dataset
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SAMPLES = 50
ENVS, TASKS = 20, 300
MODELS = [("oracle", None), ("nop", None)] + [("terminus-2", f"model-{i}") for i in range(10)]


def synthetic_records(count: int, seed: int = 7, bundled_refs: list[str] | None = None):
    from rlx.runs.record import RunRecord, new_run_id

    rng = random.Random(seed)
    for n in range(count):
        agent, model = rng.choice(MODELS)
        public, scored = rng.random() < 0.8, rng.random() < 0.85
        status = "finished" if rng.random() < 0.9 else "failed"
        reward = round(rng.random(), 2) if scored and status == "finished" else None
        env_id = BUNDLED if n % ENVS == 0 else f"bench-org/env-{n % ENVS}"
        ref = f"task-{rng.randrange(TASKS)}"
        if env_id == BUNDLED and bundled_refs:
            ref = bundled_refs[n // ENVS % len(bundled_refs)]
        yield RunRecord(id=new_run_id(), env_id=env_id, ref=ref,
                        agent=agent, model=model, visitor=f"s:{rng.randrange(5000):032x}",
                        visibility="public" if public else "private", status=status, scored=reward is not None,
                        rewards=None if reward is None else {"reward": reward},
                        created_at=f"2026-11-{1 + n % 28:02d}T10:00:{n % 60:02d}.000Z",
                        finished_at=f"2026-11-{1 + n % 28:02d}T10:05:{n % 60:02d}.{n % 1000:03d}Z")


def _timed(fn, samples: int) -> float:
    fn()  # warm: the first read pages the index in
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return round(percentile(times, 50), 2)


def measure(runs: int = 100_000) -> dict:
    from rlx import create_app
    from rlx.adapters import Env, pick
    from rlx.config import Config
    from rlx.runs import community, runs_db as index

    ws = create()
    ws.source.symlink_to(EXAMPLES, target_is_directory=True)
    try:
        app = create_app(Config.from_env({**ws.env(), "REDIS_URL": "redis://127.0.0.1:1/0"}))  # never dialled
        store = app.extensions["rlx.store"]
        with app.app_context():
            source = app.extensions["rlx.source"]
            env = Env(source.repo_info("dataset", BUNDLED), source, store)
            refs = [row.ref for row in pick(env).build_index(env).rows]
        started = time.perf_counter()
        batch = []
        for run in synthetic_records(runs, bundled_refs=refs):
            batch.append(run)
            if len(batch) == 10_000:
                index.upsert_many(store, batch)
                batch = []
        index.upsert_many(store, batch)
        written = time.perf_counter() - started
        client = app.test_client()

        def community_page():
            response = client.get("/community")
            assert response.status_code == 200, response.status_code

        env_id = "bench-org/env-3"

        def env_queries():
            community.leaderboard(store, env_id)
            community.heatmap(store, env_id)
            community.tried_refs(store, env_id)

        from rlx.runs import rollouts

        figures = {
            "task_rollouts_query_p50_ms": _timed(
                lambda: rollouts.for_tasks(store, [(BUNDLED, refs[0])], None, frozenset()), SAMPLES),
            "runs": runs,
            "write_s": round(written, 1),
            "community_page_p50_ms": _timed(community_page, SAMPLES),
            "leaderboard_p50_ms": _timed(lambda: community.leaderboard(store, env_id), SAMPLES),
            "env_page_queries_p50_ms": _timed(env_queries, SAMPLES),
            "targets": TARGETS,
        }
        with servers.app_server(ws, log_name="community-app") as url:
            figures["http_community_p50_ms"] = _timed(lambda: _get_ok(f"{url}/community"), SAMPLES)
            figures["http_leaderboard_p50_ms"] = _timed(lambda: _get_ok(f"{url}/community/{BUNDLED}"), SAMPLES)
            figures["task_runs"] = runs // ENVS // len(refs)
            figures["http_task_page_p50_ms"] = _timed(lambda: _get_ok(f"{url}/t/{BUNDLED}/{refs[0]}"), SAMPLES)
            figures["http_env_page_p50_ms"] = _timed(lambda: _get_ok(f"{url}/d/{BUNDLED}"), SAMPLES)
        figures["met"] = {k: figures[k] <= v for k, v in TARGETS.items()}
        return figures
    finally:
        shutil.rmtree(ws.root, ignore_errors=True)


def _get_ok(url: str) -> None:
    status, _, body = servers.get(url)
    if status != 200:
        raise RuntimeError(f"{url} answered {status}: {body[:200]!r}")


def render(r: dict) -> str | None:
    c = r.get("community")
    if not c:
        return None
    return (f"## l. Community pages with {c['runs']:,} run records\n\n"
            "Synthetic records (20 environments, 12 agent/model pairs; a third private, failed or not scored) written "
            f"through the runs index's own write path in {c['write_s']:.1f} s. In process: the app's test client and "
            "the index's queries; over HTTP: `rlx serve` (2 gevent workers), one request at a time. p50 of "
            f"{SAMPLES} after one warm-up.\n\n"
            + table(["", "in process", "over HTTP"], [
                ["/community (whole page)", f"{c['community_page_p50_ms']:.2f} ms",
                 f"**{c['http_community_p50_ms']:.2f} ms**"],
                [f"leaderboard (/community/{BUNDLED} over HTTP: leaderboard, heatmap, untried tasks)",
                 f"{c['leaderboard_p50_ms']:.2f} ms (query); {c['env_page_queries_p50_ms']:.2f} ms (the page's "
                 "three queries)", f"**{c['http_leaderboard_p50_ms']:.2f} ms**"],
                *([[f"task page with its rollouts (/t/{BUNDLED}/…, about {c['task_runs']:,} runs on it; the page "
                    "lists the newest 100)", f"{c['task_rollouts_query_p50_ms']:.2f} ms (its rollouts' query)",
                    f"**{c['http_task_page_p50_ms']:.2f} ms**"],
                   [f"environment page with its latest rollouts (/d/{BUNDLED})", "",
                    f"**{c['http_env_page_p50_ms']:.2f} ms**"]] if "http_task_page_p50_ms" in c else []),
            ], "lll"))


def targets(r: dict) -> list[list[str]]:
    c = r.get("community")
    if not c:
        return []
    return [[f"community page, {c['runs']:,} runs (p50, HTTP)", "≤ 50 ms", f"{c['http_community_p50_ms']:.2f} ms",
             met(c["met"]["http_community_p50_ms"])],
            [f"leaderboard page, {c['runs']:,} runs (p50, HTTP)", "≤ 50 ms",
             f"{c['http_leaderboard_p50_ms']:.2f} ms", met(c["met"]["http_leaderboard_p50_ms"])]] + (
            [[f"task page with its rollouts, {c['runs']:,} runs (p50, HTTP)", "≤ 50 ms",
              f"{c['http_task_page_p50_ms']:.2f} ms", met(c["met"]["http_task_page_p50_ms"])]]
            if "http_task_page_p50_ms" in c else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    print(json.dumps(measure(parser.parse_args().runs), indent=2))


if __name__ == "__main__":
    main()
