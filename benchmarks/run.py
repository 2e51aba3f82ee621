"""`python -m benchmarks.run [--quick]`: every measurement in order, then benchmarks/RESULTS.md rewritten.

Order: the synthetic catalog; the 1,000-task dataset indexed from it (for the pages); (a) the snapshot build;
(b) the floor, then Datasette, then the app (each alone on the machine while measured), with (c) first paint and
(e) the pages on the same warm app; (g) 200 concurrent clients on a fresh app; (d) indexing through the Hub
stand-in; (h) a 3,500-task suite indexed from a folder and through the Hub; profiles where a target was missed;
(n) the cost curves at 0.1×, 1× and 10× the catalog (0.1× only when quick: benchmarks/scaling.py); (i) the
playground's relay (per-step overhead, 100 sessions on one worker); (l) the community pages over 100,000 run
records; (j) event-to-fragment latency of live rollouts and (k) 8 oracle rollouts at once; (o) SWE-bench-shaped
rows and 100,000 prompts (benchmarks/real_rows.py); (f) a 1,000,000-row parquet dataset; (m) the sitemap served shard by shard, right after the snapshot build.
`--quick` is a smoke run of a few minutes: fewer and shorter runs, its figures noisier.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchmarks import (community, concurrency, cpu_share, first_paint, health_check, indexing, machine, pages, playground,
                        profiles, real_rows, report, rollouts, rows, scaling, search, servers, sitemap, snapshot_build, suite_indexing, workspace,
                        wrk)
from benchmarks.inprocess import InProcessApp
from benchmarks.page_cache import PageCache

RESULTS = Path(__file__).with_name("RESULTS.md")


@dataclass(frozen=True)
class Plan:
    """How many runs and seconds each measurement gets."""

    builds: int
    floor_runs: int
    seconds_1: float  # per query, one connection
    seconds_8: float  # per query, eight connections (0: skipped)
    mix_seconds: float
    mix_repeats: int
    paint_runs: int
    page_seconds: float
    index_runs: int
    big_repo_to_completion: bool  # else the 5,000-task repository is indexed up to its published list only
    concurrency_seconds: float  # 200 clients on /api/search
    profile: bool  # pyinstrument where a target is missed (statement profiles always run: they are cheap)
    play_steps: int = 300  # steps on one episode, straight to the server and through the playground
    community_runs: int = 100_000  # synthetic run records behind the community pages
    health_tasks: int = 40  # tasks of the health-check benchmark (extrapolated to 1,000)
    live_runs: int = 4  # oracle rollouts followed over SSE for the event-to-fragment latency
    scale_mix_seconds: float = 5  # the cost curves: the mix at each scale, per connection count
    scaled_builds: bool = True  # the snapshot builds at 10× the catalog (a few minutes: full mode only)


FULL = Plan(builds=5, floor_runs=200, seconds_1=3, seconds_8=2, mix_seconds=5, mix_repeats=3, paint_runs=7,
            page_seconds=3, index_runs=3, big_repo_to_completion=True, concurrency_seconds=30, profile=True)
QUICK = Plan(builds=1, floor_runs=30, seconds_1=1, seconds_8=0, mix_seconds=2, mix_repeats=1, paint_runs=3,
             page_seconds=1, index_runs=1, big_repo_to_completion=False, concurrency_seconds=10, profile=False,
             play_steps=100, live_runs=2, scale_mix_seconds=3, scaled_builds=False, community_runs=10_000,
             health_tasks=8)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a two-minute smoke run (noisier figures)")
    parser.add_argument("--keep", type=Path, help="keep the workspace in this folder instead of a temporary one")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the report")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if not wrk.available():
        print("wrk is not installed (`make bench` installs it with apt-get).", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results: dict = {"command": "python -m benchmarks.run" + (" --quick" if args.quick else ""),
                     "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "quick": args.quick,
                     "machine": machine.describe(), "errors": {}}
    ws = workspace.create(args.keep)
    try:
        _run_all(ws, plan, results)
        if results.get("scaling"):
            plot = args.results.with_name("cost_curves.png")
            step(results, "cost_plot", lambda: scaling.plot(results["scaling"], plot))
    finally:
        results["seconds"] = time.perf_counter() - started
        _write_report(args.results, results)
        if args.keep is None:
            workspace.remove(ws)
        else:  # every figure, for a closer look
            (ws.root / "results.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"Wrote {args.results} in {results['seconds'] / 60:.1f} min.")
    return 0


def _write_report(path: Path, results: dict) -> None:
    """RESULTS.md; when rendering fails, the figures are kept in a JSON file beside it, so the run is not lost."""
    try:
        path.write_text(report.render(results))
    except Exception:
        kept = path.with_suffix(".failed.json")
        kept.write_text(json.dumps(results, indent=1, default=str))
        print(f"[bench] the report could not be written; every figure is in {kept}", file=sys.stderr)
        raise


def _run_all(ws: workspace.Workspace, plan: Plan, results: dict) -> None:
    step(results, "catalog", lambda: workspace.generate(ws))
    step(results, "thousand_indexed", lambda: pages.index_thousand(ws))
    step(results, "snapshot", lambda: snapshot_build.measure(ws, plan.builds))
    if plan.scaled_builds:
        step(results, "snapshot_10x", lambda: snapshot_build.measure_scaled(ws, 10, runs=max(1, plan.builds // 2)))
    if "snapshot" not in results:
        return  # nothing to serve
    step(results, "sitemap", lambda: sitemap.measure(ws))
    in_process = InProcessApp(ws)
    # Every timed search measurement below reads the snapshot: Datasette this file, the app its own copies of it.
    cache = PageCache((ws.local_db, ws.cache / "snapshots"))
    mix = search.query_mix(None)
    expected = search.totals(in_process, mix)
    results["totals"] = expected
    with servers.datasette_server(ws) as ds_url:
        token, note = search.datasette_deep_token(ws, ds_url)
        mix = search.query_mix(token)
        results["datasette_note"] = note
        shared = [q.key for q in mix if q.datasette]
        results["datasette_checks"] = search.check_totals(ds_url, mix, "datasette", expected,
                                                          search.estimated(in_process, mix))
        step(results, "datasette", lambda: search.over_http(ds_url, mix, "datasette", plan.seconds_1,
                                                            plan.seconds_8, plan.mix_seconds, plan.mix_repeats,
                                                            shared, cache))
    step(results, "floor", lambda: search.floor(in_process, mix, plan.floor_runs, cache=cache))
    with servers.app_server(ws) as app_url:
        results["app_checks"] = search.check_totals(app_url, mix, "app", expected)
        step(results, "app", lambda: search.over_http(app_url, mix, "app", plan.seconds_1, plan.seconds_8,
                                                      plan.mix_seconds, plan.mix_repeats, shared, cache))
        step(results, "server_timing", lambda: search.server_timing(app_url, mix, samples=15))
        step(results, "first_paint", lambda: first_paint.measure(app_url, plan.paint_runs))
        step(results, "pages", lambda: pages.measure(app_url, plan.page_seconds))
    step(results, "concurrency", lambda: concurrency.measure(ws, plan.concurrency_seconds))
    step(results, "indexing", lambda: indexing.measure(plan.index_runs, quick=not plan.big_repo_to_completion))
    step(results, "suite_indexing", lambda: suite_indexing.measure(quick=not plan.big_repo_to_completion))
    step(results, "profiles", lambda: profiles.where_missed(ws, in_process, results, mix, sampled=plan.profile))
    step(results, "scaling", lambda: scaling.measure(ws, plan is QUICK, plan.scale_mix_seconds, plan.seconds_1))
    step(results, "playground", lambda: playground.measure(plan.play_steps))
    step(results, "community", lambda: community.measure(plan.community_runs))
    step(results, "rollouts", lambda: rollouts.measure(plan.live_runs))
    step(results, "health_check", lambda: health_check.measure(plan.health_tasks))
    step(results, "real_rows", lambda: real_rows.measure(ws, plan.page_seconds))  # a source folder of its own
    step(results, "rows", lambda: rows.measure(ws, plan.page_seconds))  # last: it adds a dataset to the source


def step(results: dict, name: str, work) -> None:
    """Run one measurement; a failure is written into the report instead of ending the whole run."""
    started, cpu_before = time.perf_counter(), cpu_share.steal_and_busy()
    print(f"[bench] {name} …", flush=True)
    try:
        results[name] = work()
    except Exception as exc:  # the report says what broke; the other measurements still run
        results["errors"][name] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
        print(f"[bench] {name} failed: {exc}", file=sys.stderr, flush=True)
    finally:
        results.setdefault("step_seconds", {})[name] = round(time.perf_counter() - started, 1)
        results.setdefault("step_stolen", {})[name] = cpu_share.stolen_share(cpu_before, cpu_share.steal_and_busy())


if __name__ == "__main__":
    sys.exit(main())
